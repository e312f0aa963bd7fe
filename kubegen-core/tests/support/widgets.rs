//! Seeded custom resource definitions and objects for the validation
//! tests: structural schemas with bounds, patterns, enums, defaults,
//! nullable fields, list sets and maps, maps and preserved fields,
//! `x-kubernetes-validations` rules (with `message`, `messageExpression`,
//! `reason` and `fieldPath`), and objects built from them — valid, then
//! broken as users break them.

use kubegen_core::rng::Rng;
use serde_json::{Map, Value, json};

const NAMES: &[&str] = &[
    "replicas", "name", "items", "mode", "ports", "labels", "extra", "nested",
];

/// A seeded structural schema node of `depth` levels.
pub fn gen_node(rng: &mut Rng, depth: usize) -> Value {
    let mut s = match rng.below(if depth == 0 { 6 } else { 12 }) {
        0 => json!({"type": "integer", "minimum": 0, "maximum": 10}),
        1 => json!({"type": "string", "maxLength": 5}),
        2 => json!({"type": "string", "enum": ["a", "b"]}),
        3 => json!({"type": "boolean"}),
        4 => json!({"type": "string", "pattern": "^[a-z]+$"}),
        5 => json!({"type": "number", "format": "double"}),
        6 => json!({"type": "array", "x-kubernetes-list-type": "set", "maxItems": 4,
            "items": {"type": "string"}}),
        7 => {
            json!({"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
            "items": {"type": "object", "required": ["name"], "properties": {
                "name": {"type": "string"}, "port": {"type": "integer", "default": 80}}}})
        }
        8 => json!({"type": "object", "additionalProperties": gen_node(rng, depth - 1)}),
        9 if rng.chance(1, 2) => {
            // An embedded resource: no rules, defaults or nulls on it.
            return if rng.chance(1, 2) {
                json!({"type": "object", "x-kubernetes-embedded-resource": true,
                    "x-kubernetes-preserve-unknown-fields": true})
            } else {
                json!({"type": "object", "x-kubernetes-embedded-resource": true, "properties": {
                    "apiVersion": {"type": "string"}, "kind": {"type": "string"},
                    "metadata": {"type": "object"},
                    "data": {"type": "object", "additionalProperties": {"type": "string"}}}})
            };
        }
        10 => json!({"type": "string", "format": "date-time"}),
        11 => json!({"type": "string", "format": "duration"}),
        _ => gen_object(rng, depth - 1),
    };
    if rng.chance(1, 6) {
        s["nullable"] = json!(true);
    }
    if rng.chance(1, 3) {
        add_rules(rng, &mut s);
    }
    if rng.chance(1, 5) && s.get("default").is_none() {
        let d = match s["type"].as_str() {
            Some("integer") => Some(json!(3)),
            Some("string") if s.get("enum").is_some() => Some(json!("a")),
            Some("string") if s.get("pattern").is_some() => Some(json!("abc")),
            Some("string") if s.get("format").is_some() => None,
            Some("string") => Some(json!("d")),
            Some("boolean") => Some(json!(true)),
            _ => None,
        };
        if let Some(d) = d {
            s["default"] = d;
        }
    }
    s
}

pub fn gen_object(rng: &mut Rng, depth: usize) -> Value {
    let mut props = Map::new();
    for name in NAMES.iter().take(2 + rng.below(4)) {
        props.insert((*name).to_string(), gen_node(rng, depth));
    }
    let mut s = json!({"type": "object", "properties": props});
    let required: Vec<String> = props_names(&s)
        .into_iter()
        .filter(|_| rng.chance(1, 4))
        .collect();
    if !required.is_empty() {
        s["required"] = json!(required);
    }
    if rng.chance(1, 8) {
        s["x-kubernetes-preserve-unknown-fields"] = json!(true);
    }
    if rng.chance(1, 3) {
        add_rules(rng, &mut s);
    }
    // Rules for a property under an `allOf` entry of the object, typed by
    // the property's own schema.
    if rng.chance(1, 6) {
        let names = props_names(&s);
        let name = rng.pick(&names).clone();
        let mut bare = s["properties"][&name].clone();
        if let Some(b) = bare.as_object_mut() {
            b.remove("x-kubernetes-validations");
            b.remove("allOf");
        }
        let mut holder = bare.clone();
        add_rules(rng, &mut holder);
        let mut entry = json!({});
        if let Some(rules) = holder.get("x-kubernetes-validations") {
            entry["x-kubernetes-validations"] = rules.clone();
        }
        if let Some(nested) = holder.get("allOf") {
            entry["allOf"] = nested.clone();
        }
        if entry.as_object().is_some_and(|e| !e.is_empty()) {
            all_of(&mut s).push(json!({"properties": {name: entry}}));
        }
    }
    s
}

/// Rules for a node of `s`'s kind, each of what kubegen evaluates: some
/// fail on the values generated, some fail to evaluate (absent fields,
/// overflow, division by zero, bad indexes and conversions).
fn rules_for(rng: &mut Rng, s: &Value) -> Vec<(String, Option<String>, Option<String>)> {
    // (rule, messageExpression, fieldPath)
    let plain = |r: &str| (r.to_string(), None, None);
    let with_message = |r: &str, m: &str| (r.to_string(), Some(m.to_string()), None);
    let is_map_list = s.get("x-kubernetes-list-type") == Some(&json!("map"));
    let kind = s["type"].as_str().unwrap_or("");
    let mut out = Vec::new();
    match kind {
        "integer" => out.extend([
            plain("self < 8"),
            plain("self % 3 != 1"),
            with_message("10 / self >= 2", "'got ' + string(self)"),
            plain("self * 1000000000000000000 < 5000000000000000000"),
            plain("int(string(self)) == self && double(self) <= 9.5"),
            plain("self in [1, 2, 3, 4, 5, 6, 7]"),
            with_message("uint(self) < 8u", "'uint ' + string(uint(self))"),
            plain("-self <= 0 || self == -5"),
            plain("type(self) == int && self != 9"),
            plain("[self, 1].sum() < 9 && [self, 3].min() == 3"),
            plain("optional.ofNonZeroValue(self).hasValue()"),
            plain("isIP('10.0.0.' + string(self)) && ip('10.0.0.' + string(self)).isGlobalUnicast()"),
            with_message(
                "!isIP('::' + string(self)) || string(ip('::' + string(self))) != '::1'",
                "string(ip('::' + string(self)))",
            ),
            plain("!isIP('127.0.0.' + string(self)) || !ip('127.0.0.' + string(self)).isLoopback() || self > 3"),
            plain("{'a': self}['a'] < 9 && {'k': self}[string(self)] == 1"),
            plain("!isSemver(string(self) + '.1.0') || semver(string(self) + '.1.0').isLessThan(semver('5.0.0-rc.1'))"),
            with_message(
                "!isSemver('v' + string(self), true) || semver('v' + string(self), true).compareTo(semver('3.0.0')) <= 0",
                "'major ' + string(semver('v' + string(self), true).major())",
            ),
            plain("!isCIDR('10.0.0.0/' + string(self)) || cidr('10.0.0.0/' + string(self)).containsIP('10.128.0.0')"),
            with_message(
                "!isCIDR('10.1.2.3/' + string(self)) || string(cidr('10.1.2.3/' + string(self)).masked()) != '10.0.0.0/8'",
                "string(cidr('10.1.2.3/' + string(self)).masked().ip())",
            ),
            plain("!isCIDR('fd00::/' + string(self * 10)) || cidr('fd00::/' + string(self * 10)).prefixLength() < 90"),
            plain("duration(string(self) + 's') < duration('8s')"),
            plain("timestamp(self).getFullYear() == 1970 && timestamp(self).getSeconds() < 8"),
            with_message(
                "(timestamp(0) + duration(string(self) + 'h')).getHours() < 8",
                "string(timestamp(0) + duration(string(self) + 'h'))",
            ),
            plain("string(duration(string(self) + 'ms')) != '0.005s'"),
            plain("timestamp(253402300790 + self) > timestamp(0)"),
            plain("duration('2562047h') + duration(string(self) + 'h') > duration('0s')"),
            plain("duration(string(self) + 'm').getSeconds() < 400"),
        ]),
        "string" if s["format"] == "date-time" => out.extend([
            plain("self.getFullYear() >= 2000"),
            plain("self + duration('1h') > timestamp('2024-01-02T04:00:00Z')"),
            with_message("self.getHours() < 3", "'at ' + string(self)"),
            plain("string(self) != '2024-01-02T03:04:05Z' && self.getMilliseconds() == 0"),
            plain("self - timestamp('2024-01-01T00:00:00Z') < duration('24h')"),
        ]),
        "string" if s["format"] == "duration" => out.extend([
            plain("self < duration('2h')"),
            with_message("self.getMinutes() < 90", "string(self)"),
            plain("string(self) != '3600s'"),
            plain("timestamp(0) + self > timestamp(3600)"),
        ]),
        "string" => out.extend([
            with_message("self.size() <= 2", "'too long: ' + self"),
            plain("self.startsWith('a') || self.endsWith('z')"),
            plain("self.matches('^[a-x]+$')"),
            plain("self.contains('y') == false"),
            with_message("self != 'q'", "' '"),
            plain("self + '!' != 'ab!'"),
            plain("int(self) > 0"),
            plain("bool(self) || self != 'b'"),
            plain("[self, 'x'][2] == 'x'"),
            plain("self.lowerAscii() == self && self.upperAscii().charAt(0) != 'Q'"),
            plain("self.charAt(3) != 'x'"),
            plain("timestamp(self) > timestamp(0)"),
            plain("duration(self) > duration('0s')"),
            plain("self.indexOf('b') < 1 && self.lastIndexOf('y') != 1"),
            with_message(
                "self.replace('a', 'z') != 'zb'",
                "self.replace('a', 'A', 1)",
            ),
            plain("self.split('').size() < 3"),
            plain("self.substring(1) != 'b'"),
            plain("self.substring(2, 4) != 'z'"),
            plain("self.trim() == self && [self, 'x'].join('-') != 'ab-x'"),
            plain("self.find('[a-c]+') != 'ab' && self.matches('b')"),
            with_message(
                "self.findAll('[xyz]').size() < 2",
                "self.findAll('.', 2).join('')",
            ),
            // The quantity, URL and format libraries, `string.format`.
            plain("!isQuantity(self) || quantity(self).isLessThan(quantity('1Ki'))"),
            plain("quantity(self + 'Mi').add(1).isGreaterThan(quantity('1'))"),
            plain("!isURL('https://' + self + '.example.com:8443/p?q=' + self) || url('https://' + self + '.example.com:8443/p?q=' + self).getPort() == '8443'"),
            plain("!format.dns1123Label().validate(self).hasValue()"),
            with_message(
                "format.named('labelValue').value().validate(self).orValue([]).size() == 0",
                "'%s is %d long'.format([self, self.size()])",
            ),
            plain("strings.quote(self) != '\"q\"'"),
        ]),
        "boolean" => out.extend([plain("self"), plain("!self || 1 < 1.5")]),
        "number" => out.extend([
            with_message("self < 10.0", "'got ' + string(self)"),
            plain("self >= 1"),
            plain("int(self) < 20"),
            plain("self * 2.0 != 5.0"),
            plain("[self, 1.5].max() < 10.0"),
        ]),
        "array" if is_map_list => out.extend([
            plain("self.size() < 3"),
            plain("self.all(x, x.port > 0)"),
            plain("self.exists(x, x.name == 'n0')"),
            with_message(
                "self.all(x, has(x.port))",
                "'ports: ' + string(self.size())",
            ),
            plain("self[1].name == 'n1'"),
            plain("self.map(x, x.name).isSorted()"),
            plain("self[?1].hasValue()"),
            plain("self.map(x, x.port).sum() < 200"),
        ]),
        "array" => out.extend([
            plain("self.size() <= 2"),
            plain("self.all(x, x.startsWith('s'))"),
            plain("self.exists(x, x == 's0')"),
            plain("self.exists_one(x, x == 's1')"),
            with_message(
                "self.map(x, x + '!').size() == 3",
                "'size ' + string(self.size())",
            ),
            plain("self.filter(x, x != 's0').size() < 2"),
            plain("'s2' in self"),
            plain("self[0] == 's0'"),
            plain("(self + ['t'])[self.size()] == 't'"),
            plain("self.isSorted() && self.max() != 's3'"),
            plain("self.min() == 's0'"),
            plain("self.indexOf('s1') != 1 && self.lastIndexOf('s0') < 1"),
            plain("sets.contains(self, ['s0'])"),
            plain("sets.intersects(self, ['s1', 's9'])"),
            with_message("sets.equivalent(self, ['s0', 's1'])", "self.join(', ')"),
            plain("self.exists(i, x, i == 1 && x == 's1')"),
            plain("self.all(i, x, x != 's2' || i > 1)"),
            plain("self.reverse().size() == self.size() && self.sort()[0] <= 's0'"),
            plain("self.slice(1, 3).size() == 2"),
            with_message("self.distinct().size() == self.size()", "self.distinct().join(',')"),
            plain("self.first().orValue('') == 's0' && self.last().hasValue()"),
            plain("lists.range(self.size()).all(i, self[i] == 's' + string(i))"),
            plain("[self, ['z']].flatten().size() < 4"),
            plain("self == ['s0', 's1'] || ['s1', 's0'] != self"),
            plain("(self + ['t']).size() > 0 && self != ['t']"),
            // Shapes cel-go plans (and charges) apart: conditional
            // attributes, indexes by a variable, constant and built
            // lists and maps, `in` a constant list.
            plain("(self.size() > 1 ? self[1] : self[0]) != 's9'"),
            plain("self.all(i, x, self[i] == x && (i > 0 ? self[i - 1] : x) <= x)"),
            plain("{'k': self}.k.size() == self.size() && [self, ['z']][1] == ['z']"),
            plain("self.exists(x, x in ['s1', 's3']) || self.map(x, [x]).size() > 9"),
            plain("self.all(x, x < 'zz' && 'a' + x > x && x in [x, 'q'])"),
        ]),
        "object" if s.get("additionalProperties").is_some() => out.extend([
            plain("self.size() < 2"),
            plain("has(self.a)"),
            plain("'b' in self"),
            plain("self.all(k, k != 'b')"),
            plain("self[?'a'].hasValue()"),
            plain("self.?b.hasValue() || self.size() == 0"),
            plain("self.all(k, self[k] == self[k] && has(self.a) == ('a' in self))"),
            plain("(has(self.a) ? self.a : self['b']) == self[?'a'].orValue(self['b'])"),
        ]),
        "object" => {
            let props: Vec<(String, String)> = s["properties"]
                .as_object()
                .map(|p| {
                    p.iter()
                        .map(|(k, v)| {
                            let t = v["type"].as_str().unwrap_or("");
                            // Formatted strings are timestamps and durations.
                            let t = if v.get("format").is_some() && t == "string" { "" } else { t };
                            (k.clone(), t.to_string())
                        })
                        .collect()
                })
                .unwrap_or_default();
            for (c, t) in props {
                let at = Some(format!(".{c}"));
                out.push((format!("has(self.{c})"), None, at.clone()));
                match t.as_str() {
                    "integer" => out.extend([
                        (
                            format!("self.{c} > 2"),
                            Some(format!("'{c} is ' + string(self.{c})")),
                            at.clone(),
                        ),
                        plain(&format!("!has(self.{c}) || self.{c} < 7")),
                        plain(&format!("has(self.{c}) ? self.{c} != 5 : true")),
                        plain(&format!("self.?{c}.orValue(0) < 5")),
                    ]),
                    "string" => out.extend([
                        (format!("self.{c}.size() > 1"), None, at.clone()),
                        plain(&format!("has(self.{c}) && self.{c} != 'xyz'")),
                        plain(&format!("self.?{c}.orValue('') != 'ab'")),
                    ]),
                    _ => {}
                }
            }
        }
        _ => {}
    }
    let n = out.len();
    let mut picked = Vec::new();
    if n > 0 {
        for _ in 0..1 + rng.below(3) {
            picked.push(out[rng.below(n)].clone());
        }
    }
    picked
}

/// Adds rules to `s`, decorated with a message, a message expression, a
/// reason or a field path at random.
fn add_rules(rng: &mut Rng, s: &mut Value) {
    let mut rules = Vec::new();
    for (rule, message_expression, field_path) in rules_for(rng, s) {
        let mut r = json!({"rule": rule});
        match rng.below(4) {
            0 => r["message"] = json!(*rng.pick(&["must hold", "  padded message  "])),
            1 => {
                if let Some(m) = message_expression {
                    r["messageExpression"] = json!(m);
                }
                if rng.chance(1, 2) {
                    r["message"] = json!("fallback message");
                }
            }
            _ => {}
        }
        if rng.chance(1, 3) {
            r["reason"] = json!(*rng.pick(&[
                "FieldValueInvalid",
                "FieldValueForbidden",
                "FieldValueRequired",
                "FieldValueDuplicate",
            ]));
        }
        if let Some(f) = field_path
            && rng.chance(1, 2)
        {
            // As often in the bracketed form (`['name']`), which the
            // apiserver normalizes to the same path.
            let f = match f.strip_prefix('.') {
                Some(name) if rng.chance(1, 2) => format!("['{name}']"),
                _ => f,
            };
            r["fieldPath"] = json!(f);
        }
        // The apiserver keys a node's rules by their text.
        if !rules.iter().any(|x: &Value| x["rule"] == r["rule"]) {
            rules.push(r);
        }
    }
    // Transition rules, which read the old value on update.
    if rng.chance(1, 3) {
        let typed = match (s["type"].as_str(), s.get("x-kubernetes-list-type")) {
            (Some("integer" | "number"), _) => "self >= oldSelf",
            (Some("string"), _) if s.get("format").is_none() => {
                "self.size() >= oldSelf.size() || self == oldSelf"
            }
            (Some("array"), Some(t)) if t == "map" => "self.size() >= oldSelf.size()",
            (Some("array"), _) => "oldSelf.all(x, x in self)",
            _ => "self == oldSelf",
        };
        let rule = match rng.below(3) {
            0 => json!({"rule": "self == oldSelf", "message": "is immutable"}),
            1 => json!({"rule": typed, "messageExpression": "'was ' + string(size([oldSelf]))"}),
            _ => json!({"rule": "!oldSelf.hasValue() || self == oldSelf.value()",
                "optionalOldSelf": true}),
        };
        if !rules.iter().any(|x: &Value| x["rule"] == rule["rule"]) {
            rules.push(rule);
        }
    }
    if rules.is_empty() {
        return;
    }
    // Under `allOf` now and then: the apiserver runs them on the node,
    // after its own.
    if rng.chance(1, 5) {
        all_of(s).push(json!({"x-kubernetes-validations": rules}));
    } else {
        s["x-kubernetes-validations"] = json!(rules);
    }
}

/// `s`'s `allOf` entries, made on first use.
fn all_of(s: &mut Value) -> &mut Vec<Value> {
    if !s.get("allOf").is_some_and(Value::is_array) {
        s["allOf"] = json!([]);
    }
    s["allOf"].as_array_mut().unwrap()
}

fn props_names(s: &Value) -> Vec<String> {
    s["properties"]
        .as_object()
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default()
}

/// A value the schema accepts, mostly; some fields left out.
pub fn gen_value(rng: &mut Rng, s: &Value) -> Value {
    if s.get("nullable").is_some() && rng.chance(1, 8) {
        return Value::Null;
    }
    if s.get("x-kubernetes-embedded-resource").is_some() {
        return embedded_resource(rng);
    }
    match s["type"].as_str().unwrap_or("") {
        "integer" => json!(rng.below(11) as i64),
        "number" => json!(rng.below(100) as f64 / 4.0),
        "boolean" => json!(rng.chance(1, 2)),
        "string" => match (
            s.get("enum").and_then(Value::as_array),
            s["format"].as_str(),
        ) {
            (Some(e), _) => rng.pick(e).clone(),
            (None, Some("date-time")) => json!(
                [
                    "2024-01-02T03:04:05Z",
                    "2024-01-02T03:04:05.5Z",
                    "1999-12-31T23:59:59",
                    ""
                ][rng.below(4)]
            ),
            (None, Some("duration")) => json!(["1h", "90m", "1h30m15.5s", "-2s"][rng.below(4)]),
            (None, _) => json!(["ab", "xyz", "q"][rng.below(3)]),
        },
        "array" => {
            let n = rng.below(4);
            let items = &s["items"];
            let mut out: Vec<Value> = (0..n).map(|_| gen_value(rng, items)).collect();
            if items
                .get("properties")
                .is_some_and(|p| p.get("name").is_some())
            {
                for (i, v) in out.iter_mut().enumerate() {
                    v["name"] = json!(format!("n{i}"));
                }
            } else if s.get("x-kubernetes-list-type").is_some() {
                out = (0..n).map(|i| json!(format!("s{i}"))).collect();
            }
            Value::Array(out)
        }
        "object" => {
            let mut m = Map::new();
            if let Some(values) = s.get("additionalProperties").filter(|v| v.is_object()) {
                for k in ["a", "b"].iter().take(rng.below(3)) {
                    m.insert((*k).to_string(), gen_value(rng, values));
                }
            }
            let required: Vec<&str> = s
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if let Some(props) = s.get("properties").and_then(Value::as_object) {
                for (k, sub) in props {
                    if required.contains(&k.as_str()) || rng.chance(2, 3) {
                        m.insert(k.clone(), gen_value(rng, sub));
                    }
                }
            }
            Value::Object(m)
        }
        _ => json!({}),
    }
}

/// A random path into `v` to an object or array.
fn containers(v: &Value, at: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match v {
        Value::Object(m) => {
            out.push(at.clone());
            for (k, c) in m {
                at.push(k.clone());
                containers(c, at, out);
                at.pop();
            }
        }
        Value::Array(a) => {
            for (i, c) in a.iter().enumerate() {
                at.push(format!("#{i}"));
                containers(c, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

fn at_path<'v>(v: &'v mut Value, path: &[String]) -> &'v mut Value {
    let mut node = v;
    for p in path {
        node = match p.strip_prefix('#') {
            Some(i) => &mut node[i.parse::<usize>().unwrap()],
            None => &mut node[p.as_str()],
        };
    }
    node
}

/// Breaks `obj` the way users do.
pub fn mutate(rng: &mut Rng, obj: &mut Value) {
    let mut found = Vec::new();
    containers(obj, &mut Vec::new(), &mut found);
    // Within spec: the root's apiVersion and kind choose the CRD, and
    // metadata of the wrong types is refused while decoding, before
    // validation.
    found.retain(|p| p.first().is_some_and(|f| f == "spec"));
    if found.is_empty() {
        return;
    }
    let target = rng.pick(&found).clone();
    let node = at_path(obj, &target);
    let Some(map) = node.as_object_mut() else {
        return;
    };
    let keys: Vec<String> = map.keys().cloned().collect();
    match rng.below(9) {
        0 => {
            map.insert("unknownField".into(), json!(1));
        }
        1 if !keys.is_empty() => {
            map.insert(rng.pick(&keys).clone(), Value::Null);
        }
        2 if !keys.is_empty() => {
            map.remove(rng.pick(&keys).as_str());
        }
        3 if !keys.is_empty() => {
            map.insert(rng.pick(&keys).clone(), json!("wrong"));
        }
        4 if !keys.is_empty() => {
            map.insert(rng.pick(&keys).clone(), json!(-5));
        }
        5 if !keys.is_empty() => {
            map.insert(rng.pick(&keys).clone(), json!("TOOLONGVALUE"));
        }
        6 if !keys.is_empty() => {
            let k = rng.pick(&keys).clone();
            if let Some(Value::Array(a)) = map.get_mut(&k)
                && let Some(first) = a.first().cloned()
            {
                a.push(first);
            }
        }
        7 if !keys.is_empty() => {
            map.insert(rng.pick(&keys).clone(), json!({"x": [1.5]}));
        }
        _ => {
            map.insert("enumish".into(), json!(true));
        }
    }
}

pub fn metadata(rng: &mut Rng) -> Value {
    match rng.below(10) {
        8 => json!({"name": "web", "labels": {"app": 1}}),
        9 => json!({"name": "web", "Name": "x", "finalizers": ["orphan", "foregroundDeletion"],
            "ownerReferences": [{"apiVersion": "v1", "kind": "Event", "name": "e", "uid": "1"}]}),
        0 => json!({"generateName": "web-"}),
        1 => json!({"name": "Bad_Name"}),
        2 => json!({"name": "web", "labels": {"app": "web", "bad key": "x"}}),
        3 => json!({"name": "web", "annotations": {"example.com/a": "b"}, "lables": {"typo": "x"}}),
        4 => json!({}),
        5 => json!({"name": "web", "namespace": "team-a", "finalizers": ["example.com/cleanup"]}),
        _ => json!({"name": format!("web-{}", rng.below(100))}),
    }
}

/// A CRD version's root schema with a generated `spec`.
pub fn root_schema(rng: &mut Rng) -> Value {
    let mut root = json!({"type": "object", "properties": {
        "apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {"type": "object"},
        "spec": gen_object(rng, 2),
    }});
    if rng.chance(1, 3) {
        // Rules on the resource itself: `kind`, `apiVersion` and
        // `metadata` as the apiserver shows them. A name it generates
        // from `generateName` is random, so kubegen leaves the rules
        // reading the metadata of such an object unevaluated: these hold
        // whatever the name, so the apiserver reports nothing either.
        let rules = [
            json!({"rule": "self.kind == 'Widget' && self.apiVersion.startsWith('example.com/')"}),
            json!({"rule": "has(self.spec) && self.metadata == self.metadata", "message": "spec required"}),
            json!({"rule": "!has(self.metadata.generateName) || self.metadata.generateName.endsWith('-')"}),
            json!({"rule": "self.metadata.name.size() > 0", "fieldPath": ".metadata", "reason": "FieldValueForbidden"}),
        ];
        let mut picked: Vec<Value> = Vec::new();
        for _ in 0..1 + rng.below(2) {
            let r = rng.pick(&rules).clone();
            // The apiserver keys a node's rules by their text.
            if !picked.contains(&r) {
                picked.push(r);
            }
        }
        root["x-kubernetes-validations"] = json!(picked);
    }
    root
}

/// A `Widget` (group `example.com`, version `v1`) of `schema`, valid or
/// broken up to two times.
pub fn widget(rng: &mut Rng, schema: &Value, group: &str) -> Value {
    let mut object = json!({"apiVersion": format!("{group}/v1"), "kind": "Widget",
        "metadata": metadata(rng), "spec": gen_value(rng, &schema["properties"]["spec"])});
    for _ in 0..rng.below(3) {
        mutate(rng, &mut object);
    }
    object
}

/// The CRD serving `schema` as `widgets.<group>` version `v1`.
pub fn widget_crd(schema: &Value, group: &str, namespaced: bool) -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("widgets.{group}")},
        "spec": {"group": group, "names": {"kind": "Widget", "plural": "widgets", "singular": "widget", "listKind": "WidgetList"},
            "scope": if namespaced { "Namespaced" } else { "Cluster" },
            "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": schema}}]},
    })
}

/// `old` with parts of `other`: each field kept, replaced (or dropped),
/// or mixed further down; each list item kept or replaced.
pub fn mix(rng: &mut Rng, old: &Value, other: &Value) -> Value {
    match (old, other) {
        (Value::Object(a), Value::Object(b)) => {
            let mut out = a.clone();
            let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            for k in keys {
                match (rng.below(3), a.get(k), b.get(k)) {
                    (0, _, Some(v)) => {
                        out.insert(k.clone(), v.clone());
                    }
                    (0, _, None) => {
                        out.remove(k);
                    }
                    (1, Some(x), Some(y)) => {
                        out.insert(k.clone(), mix(rng, x, y));
                    }
                    _ => {}
                }
            }
            Value::Object(out)
        }
        (Value::Array(a), Value::Array(b)) => Value::Array(
            a.iter()
                .enumerate()
                .map(|(i, x)| match b.get(i) {
                    Some(y) if rng.chance(1, 3) => mix(rng, x, y),
                    _ => x.clone(),
                })
                .collect(),
        ),
        _ if rng.chance(1, 2) => other.clone(),
        _ => old.clone(),
    }
}

/// A timestamp text as users and tools write them, and broken: RFC 3339
/// with or without a fraction and an offset, fields out of range, one
/// digit short, a character replaced or cut off.
pub fn timestamp_text(rng: &mut Rng) -> String {
    let pick = |rng: &mut Rng, xs: &[&str]| xs[rng.below(xs.len())].to_string();
    let mut s = format!(
        "{}-{}-{}T{}:{}:{}{}{}",
        pick(rng, &["2024", "0001", "9999", "0000", "1970", "202"]),
        pick(rng, &["01", "02", "12", "13", "00", "1"]),
        pick(rng, &["01", "29", "30", "31", "00", "1"]),
        pick(rng, &["00", "03", "23", "24", "1"]),
        pick(rng, &["00", "04", "59", "60"]),
        pick(rng, &["00", "05", "59", "60"]),
        pick(rng, &["", "", ".5", ",25", ".1234567891", "."]),
        pick(
            rng,
            &[
                "Z", "Z", "+01:00", "-07:30", "+24:00", "+25:00", "+01:61", "z", "+0100", ""
            ]
        ),
    );
    match rng.below(8) {
        0 if !s.is_empty() => {
            let i = rng.below(s.len());
            s.replace_range(i..=i, ["x", "-", ":", "T", " "][rng.below(5)]);
        }
        1 => s.truncate(rng.below(s.len() + 1)),
        2 => s.push_str(" extra"),
        _ => {}
    }
    s
}

/// An embedded resource (`x-kubernetes-embedded-resource`) as users write
/// them, and broken: type meta missing, empty, of the wrong type or
/// malformed; metadata of every field's wrong types, bad names and
/// labels, owner references, finalizers, managed fields and timestamps
/// (see [`timestamp_text`]), unknown fields.
pub fn embedded_resource(rng: &mut Rng) -> Value {
    let mut r = Map::new();
    let choose = |rng: &mut Rng, xs: Vec<Value>| xs[rng.below(xs.len())].clone();
    if rng.below(8) > 0 {
        let v = choose(
            rng,
            vec![
                json!("v1"),
                json!("apps/v1"),
                json!(""),
                json!("a/b/c"),
                json!(5),
                json!("/"),
            ],
        );
        r.insert(
            "apiVersion".into(),
            if rng.chance(2, 3) { json!("v1") } else { v },
        );
    }
    if rng.below(8) > 0 {
        let v = choose(
            rng,
            vec![
                json!("Pod"),
                json!("ConfigMap"),
                json!(""),
                json!("bad_kind"),
                json!("9Pod"),
                json!(true),
            ],
        );
        r.insert(
            "kind".into(),
            if rng.chance(2, 3) {
                json!("ConfigMap")
            } else {
                v
            },
        );
    }
    match rng.below(10) {
        0 => {}
        1 => {
            r.insert(
                "metadata".into(),
                choose(rng, vec![Value::Null, json!("str"), json!([1]), json!({})]),
            );
        }
        _ => {
            let mut m = Map::new();
            m.insert("name".into(), json!("web"));
            for _ in 0..rng.below(4) {
                let (k, v) = embedded_meta_field(rng);
                m.insert(k.into(), v);
            }
            r.insert("metadata".into(), Value::Object(m));
        }
    }
    if rng.chance(1, 2) {
        r.insert("data".into(), json!({"key": "value"}));
    }
    Value::Object(r)
}

fn embedded_meta_field(rng: &mut Rng) -> (&'static str, Value) {
    let choose = |rng: &mut Rng, xs: Vec<Value>| xs[rng.below(xs.len())].clone();
    let time = |rng: &mut Rng| {
        if rng.chance(1, 5) {
            choose(
                rng,
                vec![
                    Value::Null,
                    json!(5),
                    json!({}),
                    json!("0001-01-01T00:00:00Z"),
                ],
            )
        } else {
            json!(timestamp_text(rng))
        }
    };
    let manager = "m".repeat(129);
    let subresource = "s".repeat(257);
    let managed_time = timestamp_text(rng);
    match rng.below(17) {
        0 => (
            "name",
            choose(
                rng,
                vec![
                    json!("Bad_Name"),
                    json!("x/y"),
                    json!("."),
                    json!(".."),
                    json!("a%b"),
                    json!(5),
                    Value::Null,
                    json!(""),
                ],
            ),
        ),
        1 => (
            "generateName",
            choose(rng, vec![json!("web-"), json!("a/"), json!(".."), json!(1)]),
        ),
        2 => (
            "namespace",
            choose(
                rng,
                vec![
                    json!(""),
                    json!("team-a"),
                    json!("Team"),
                    json!("team.a"),
                    json!(3),
                ],
            ),
        ),
        3 => (
            "uid",
            choose(rng, vec![json!("1234"), json!(7), Value::Null]),
        ),
        4 => (
            "generation",
            choose(
                rng,
                vec![
                    json!(1),
                    json!(-1),
                    json!(1.5),
                    json!("1"),
                    json!(1e21),
                    json!(0),
                    json!(2.0),
                    json!(10_000_000_000_000_000_000u64),
                ],
            ),
        ),
        5 => ("creationTimestamp", time(rng)),
        6 => ("deletionTimestamp", time(rng)),
        7 => (
            "deletionGracePeriodSeconds",
            choose(
                rng,
                vec![
                    json!(30),
                    json!(0),
                    json!(-1),
                    json!("x"),
                    json!(2.5),
                    Value::Null,
                ],
            ),
        ),
        8 => (
            "labels",
            choose(
                rng,
                vec![
                    json!({}),
                    json!({"a": "b"}),
                    json!({"bad key": "x"}),
                    json!({"a": 1}),
                    json!({"a": null}),
                    json!([]),
                    json!("x"),
                    json!({"a": "-bad-"}),
                ],
            ),
        ),
        9 => (
            "annotations",
            choose(
                rng,
                vec![
                    json!({"example.com/a": "b"}),
                    json!({"Bad Key": "x"}),
                    json!({"a": true}),
                    json!(5),
                ],
            ),
        ),
        10 => (
            "ownerReferences",
            choose(
                rng,
                vec![
                    json!([]),
                    json!([{"apiVersion": "apps/v1", "kind": "Deployment", "name": "d", "uid": "1"}]),
                    json!([{"apiVersion": "v1", "kind": "Event", "name": "e", "uid": "1", "controller": false}]),
                    json!([{"apiVersion": "apps/v1", "kind": "Deployment", "name": "d", "uid": "1", "controller": true},
                   {"apiVersion": "v1", "kind": "Service", "name": "s", "uid": "2", "controller": true, "blockOwnerDeletion": true}]),
                    json!([{"controller": "yes"}]),
                    json!([{"apiVersion": "a/b/c", "kind": "", "name": "", "uid": ""}]),
                    json!([5]),
                    json!({"a": 1}),
                    json!([{"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": "1", "bar": 1}]),
                ],
            ),
        ),
        11 => (
            "finalizers",
            choose(
                rng,
                vec![
                    json!(["orphan", "foregroundDeletion"]),
                    json!(["x y"]),
                    json!([1]),
                    json!("f"),
                    json!([null]),
                    json!(["example.com/f"]),
                ],
            ),
        ),
        12 => (
            "managedFields",
            choose(
                rng,
                vec![
                    json!([{"operation": "Apply", "manager": "m", "fieldsType": "FieldsV1", "fieldsV1": {"f:a": {}}, "time": "2024-01-01T00:00:00+01:00"}]),
                    json!([{"operation": "Del", "fieldsType": "F2"}]),
                    json!([{"operation": "Update", "manager": "a\u{1}b\u{a0}c"}]),
                    json!([{"operation": "Update", "manager": manager}]),
                    json!([{"operation": "Update", "subresource": subresource}]),
                    json!([{"operation": "Update", "fieldsV1": 5}]),
                    json!([{"operation": "Update", "time": managed_time}]),
                    json!([{"operation": 1}]),
                    json!([{"operation": "Update", "extra": true}]),
                ],
            ),
        ),
        13 => ("foo", json!(1)),
        14 => ("Name", json!("upper")),
        15 => ("resourceVersion", choose(rng, vec![json!("5"), json!(5)])),
        _ => ("selfLink", choose(rng, vec![json!("/x"), json!(false)])),
    }
}
