//! Objects of the model as Helm template text: a value is written as the
//! YAML kubegen writes everywhere, every `{{` in it is escaped so Helm
//! prints it verbatim (a description or a CEL message may hold one), and
//! only the places the chart templates (a namespace, a name, a list of
//! annotations) become Helm actions.
//!
//! Those places are marked in the value by placeholders: strings no text
//! of the value contains, so substituting them can touch nothing else.

use serde_json::Value;

use kubegen_core::output;

/// One document under construction: placeholders handed out, and the
/// template text each stands for.
pub struct Template {
    prefix: String,
    actions: Vec<(String, Action)>,
}

enum Action {
    /// A scalar: the placeholder is replaced by the action in place.
    Inline(String),
    /// A map entry: its whole line is replaced by these lines, indented as
    /// the entry was.
    Lines(Vec<String>),
}

impl Template {
    /// A template for `value`, with placeholders no string (key or value)
    /// of `value` contains.
    pub fn for_value(value: &Value) -> Template {
        let mut texts = Vec::new();
        strings(value, &mut texts);
        let mut prefix = String::from("kubegen-action");
        while texts.iter().any(|t| t.contains(prefix.as_str())) {
            prefix.push('x');
        }
        Template {
            prefix,
            actions: Vec::new(),
        }
    }

    fn placeholder(&mut self, action: Action) -> String {
        let name = format!("{}-{}", self.prefix, self.actions.len());
        self.actions.push((name.clone(), action));
        name
    }

    /// A scalar that is the Helm action `action` (e.g.
    /// `{{ .Release.Namespace }}`) in the rendered text.
    pub fn inline(&mut self, action: &str) -> Value {
        Value::String(self.placeholder(Action::Inline(action.to_string())))
    }

    /// A map key whose entry is replaced by `lines` (template text, relative
    /// to the entry's indentation, in which `{indent}` stands for its width
    /// in spaces, for `nindent`); insert it with a `null` value.
    pub fn lines(&mut self, lines: &[&str]) -> String {
        self.placeholder(Action::Lines(lines.iter().map(|l| l.to_string()).collect()))
    }

    /// `value` (holding this template's placeholders) as template text:
    /// the YAML without kubegen's header, `{{` escaped, placeholders
    /// substituted.
    pub fn render(&self, value: &Value) -> String {
        let yaml = output::to_yaml(value);
        let mut text = escape(yaml.trim_start_matches(output::YAML_HEADER));
        for (name, action) in &self.actions {
            text = match action {
                Action::Inline(action) => replace_once(&text, name, action),
                Action::Lines(lines) => replace_line(&text, &format!("{name}: null"), lines),
            };
        }
        text
    }
}

/// `text` as Helm template text that renders to `text`: each `{{` becomes
/// an action printing it.
pub fn escape(text: &str) -> String {
    text.replace("{{", r#"{{ "{{" }}"#)
}

/// Every string of `value`, keys included.
fn strings<'a>(value: &'a Value, out: &mut Vec<&'a str>) {
    match value {
        Value::String(s) => out.push(s),
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(map) => {
            for (k, v) in map {
                out.push(k);
                strings(v, out);
            }
        }
        _ => {}
    }
}

/// `text` with its one occurrence of `name` replaced; a placeholder that
/// is not there exactly once is a bug in the caller.
fn replace_once(text: &str, name: &str, with: &str) -> String {
    assert_eq!(
        text.matches(name).count(),
        1,
        "placeholder {name} in\n{text}"
    );
    text.replacen(name, with, 1)
}

/// `text` with the line whose content is `entry` replaced by `lines`,
/// each indented as that line was.
fn replace_line(text: &str, entry: &str, lines: &[String]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut found = 0;
    for line in text.split_inclusive('\n') {
        let content = line.trim_end_matches('\n');
        let trimmed = content.trim_start();
        if trimmed == entry {
            found += 1;
            let indent = &content[..content.len() - trimmed.len()];
            for l in lines {
                out.push_str(indent);
                out.push_str(&l.replace("{indent}", &indent.len().to_string()));
                out.push('\n');
            }
        } else {
            out.push_str(line);
        }
    }
    assert_eq!(found, 1, "placeholder entry {entry} in\n{text}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// What Helm's text/template does with escaped text that holds no other
    /// action: each `{{ "{{" }}` prints `{{`.
    fn helm_prints(template: &str) -> String {
        template.replace(r#"{{ "{{" }}"#, "{{")
    }

    #[test]
    fn escaped_text_prints_itself() {
        for text in [
            "a {{ .Release.Name }} b",
            "{{{{{",
            "}}{{-",
            "{{/* comment */}}",
            "{ { {",
            "plain",
        ] {
            let escaped = escape(text);
            assert_eq!(helm_prints(&escaped), text);
            // No action is left but the escapes themselves.
            let rest = escaped.replace(r#"{{ "{{" }}"#, "");
            assert!(!rest.contains("{{"), "{escaped}");
        }
    }

    #[test]
    fn placeholders_avoid_every_string_of_the_value() {
        let value = json!({"kubegen-action-0": "kubegen-actionx", "b": ["kubegen-actionxx-1"]});
        let mut t = Template::for_value(&value);
        let p = t.inline("{{ .Release.Namespace }}");
        let p = p.as_str().unwrap();
        assert!(p.starts_with("kubegen-actionxxx-"), "{p}");
    }

    #[test]
    fn actions_replace_only_their_placeholders() {
        let mut value = json!({
            "metadata": {"name": "x", "annotations": {"keep": "a {{ b }}"}},
            "spec": {"namespace": null},
        });
        let mut t = Template::for_value(&value);
        value["spec"]["namespace"] = t.inline("{{ .Release.Namespace }}");
        let key = t.lines(&[
            "{{- if .Values.x }}",
            "extra: y",
            "{{- end }}",
            "{{- x | nindent {indent} }}",
        ]);
        value["metadata"]["annotations"][key] = Value::Null;
        let text = t.render(&value);
        assert!(
            text.contains("namespace: {{ .Release.Namespace }}\n"),
            "{text}"
        );
        assert!(
            text.contains(
                "    {{- if .Values.x }}\n    extra: y\n    {{- end }}\n    {{- x | nindent 4 }}\n"
            ),
            "{text}"
        );
        // The emitter quotes the value; the escape is inside the quotes and
        // prints `{{` there.
        assert!(text.contains(r#"keep: "a {{ "{{" }} b }}""#), "{text}");
        assert!(!text.contains("kubegen-action"), "{text}");
    }
}
