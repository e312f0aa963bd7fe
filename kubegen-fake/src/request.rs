//! What a request asks for, read from its method, path and query as the
//! apiserver's `RequestInfoFactory` reads them: the verb, the API group
//! and version, the namespace, the resource, the name and the
//! subresource; or one of the non-resource paths (discovery, version,
//! health).

use std::collections::BTreeMap;

use http::Method;

/// The verbs of resource requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verb {
    /// GET of one object.
    Get,
    /// GET of a collection.
    List,
    /// GET of a collection with `watch=true`.
    Watch,
    /// POST.
    Create,
    /// PUT.
    Update,
    /// PATCH.
    Patch,
    /// DELETE of one object.
    Delete,
    /// DELETE of a collection.
    DeleteCollection,
}

/// A resource request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceCall {
    /// What it does.
    pub verb: Verb,
    /// API group (empty for the core group).
    pub group: String,
    /// API version.
    pub version: String,
    /// Namespace from the path, if any.
    pub namespace: Option<String>,
    /// Plural resource name.
    pub resource: String,
    /// Object name, if any.
    pub name: Option<String>,
    /// Subresource (`status`, `scale`), if any.
    pub subresource: Option<String>,
    /// Decoded query parameters.
    pub query: BTreeMap<String, String>,
}

/// What a request path names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Call {
    /// A resource request.
    Resource(ResourceCall),
    /// `/api`.
    CoreVersions,
    /// `/apis`.
    Groups,
    /// `/apis/<group>`.
    Group(String),
    /// `/api/v1` or `/apis/<group>/<version>`.
    Resources(String, String),
    /// `/version`.
    Version,
    /// `/healthz`, `/livez`, `/readyz`.
    Health,
    /// Anything else.
    Unknown,
}

/// Decodes `application/x-www-form-urlencoded` text.
pub fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = |c: u8| (c as char).to_digit(16);
                match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                    (Some(h), Some(l)) => {
                        out.push((h * 16 + l) as u8);
                        i += 2;
                    }
                    _ => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The query parameters (the last value of a repeated one wins).
pub fn query(q: Option<&str>) -> BTreeMap<String, String> {
    q.unwrap_or("")
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| match p.split_once('=') {
            Some((k, v)) => (decode(k), decode(v)),
            None => (decode(p), String::new()),
        })
        .collect()
}

/// Reads a request.
pub fn parse(method: &Method, path: &str, q: Option<&str>) -> Call {
    let parts: Vec<String> = path
        .trim_matches('/')
        .split('/')
        .filter(|s| !s.is_empty())
        .map(decode)
        .collect();
    let p: Vec<&str> = parts.iter().map(String::as_str).collect();
    let (group, version, rest) = match p.as_slice() {
        ["version"] => return Call::Version,
        ["healthz" | "livez" | "readyz", ..] => return Call::Health,
        ["api"] => return Call::CoreVersions,
        ["apis"] => return Call::Groups,
        ["apis", g] => return Call::Group(g.to_string()),
        ["api", v] => return Call::Resources(String::new(), v.to_string()),
        ["apis", g, v] => return Call::Resources(g.to_string(), v.to_string()),
        ["api", v, rest @ ..] => ("", *v, rest),
        ["apis", g, v, rest @ ..] => (*g, *v, rest),
        _ => return Call::Unknown,
    };
    let (namespace, rest) = match rest {
        // namespaces/<name>/status and /finalize are the namespace's own
        // subresources, not a resource inside it.
        ["namespaces", ns, sub, ..]
            if !(group.is_empty() && matches!(*sub, "status" | "finalize") && rest.len() == 3) =>
        {
            (Some(ns.to_string()), &rest[2..])
        }
        _ => (None, rest),
    };
    let (resource, name, subresource) = match rest {
        [r] => (*r, None, None),
        [r, n] => (*r, Some(n.to_string()), None),
        [r, n, s] => (*r, Some(n.to_string()), Some(s.to_string())),
        _ => return Call::Unknown,
    };
    let query = query(q);
    let watch = query
        .get("watch")
        .is_some_and(|w| matches!(w.as_str(), "true" | "1"));
    let verb = match (method, name.is_some()) {
        (&Method::GET, true) => Verb::Get,
        (&Method::GET, false) if watch => Verb::Watch,
        (&Method::GET, false) => Verb::List,
        (&Method::POST, _) => Verb::Create,
        (&Method::PUT, _) => Verb::Update,
        (&Method::PATCH, _) => Verb::Patch,
        (&Method::DELETE, true) => Verb::Delete,
        (&Method::DELETE, false) => Verb::DeleteCollection,
        _ => return Call::Unknown,
    };
    Call::Resource(ResourceCall {
        verb,
        group: group.to_string(),
        version: version.to_string(),
        namespace,
        resource: resource.to_string(),
        name,
        subresource,
        query,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(method: Method, path: &str) -> ResourceCall {
        let (path, q) = match path.split_once('?') {
            Some((p, q)) => (p, Some(q)),
            None => (path, None),
        };
        match parse(&method, path, q) {
            Call::Resource(r) => r,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn paths_read_as_request_info_reads_them() {
        let c = call(
            Method::GET,
            "/apis/apps/v1/namespaces/ns/deployments/web/scale",
        );
        assert_eq!(
            (
                c.verb,
                c.group.as_str(),
                c.namespace.as_deref(),
                c.resource.as_str(),
                c.name.as_deref(),
                c.subresource.as_deref()
            ),
            (
                Verb::Get,
                "apps",
                Some("ns"),
                "deployments",
                Some("web"),
                Some("scale")
            )
        );
        let ns = call(Method::PUT, "/api/v1/namespaces/ns/status");
        assert_eq!(
            (
                ns.namespace,
                ns.resource.as_str(),
                ns.name.as_deref(),
                ns.subresource.as_deref()
            ),
            (None, "namespaces", Some("ns"), Some("status"))
        );
        let ns = call(Method::GET, "/api/v1/namespaces/ns");
        assert_eq!((ns.namespace, ns.name.as_deref()), (None, Some("ns")));
        let w = call(
            Method::GET,
            "/api/v1/pods?watch=true&labelSelector=app%3Dweb%2Ctier+in+(a)",
        );
        assert_eq!(w.verb, Verb::Watch);
        assert_eq!(w.query["labelSelector"], "app=web,tier in (a)");
        let l = call(Method::GET, "/api/v1/namespaces/ns/configmaps");
        assert_eq!((l.verb, l.namespace.as_deref()), (Verb::List, Some("ns")));
        assert_eq!(
            call(Method::DELETE, "/api/v1/namespaces/ns/pods").verb,
            Verb::DeleteCollection
        );
        assert_eq!(
            parse(&Method::GET, "/apis/apps/v1", None),
            Call::Resources("apps".into(), "v1".into())
        );
        assert_eq!(parse(&Method::GET, "/metrics", None), Call::Unknown);
    }
}
