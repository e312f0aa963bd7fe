//! Unit tests of `kubegen add`: what it edits, what it refuses, and that a
//! refusal leaves the crate byte for byte as it was.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{kind, version, webhook};
use crate::scaffold::{Options, create};
use crate::source::Diagnostic;

/// A fresh temporary directory holding a crate made by `kubegen new`.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str, with_webhook: bool) -> Scratch {
        let tmp = std::env::temp_dir().join(format!("kubegen-add-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        create(&Options {
            dir: tmp.join("my-op"),
            group: "stable.example.com".into(),
            version: "v1".into(),
            kind: "MyApplication".into(),
            kubegen_path: None,
            webhook: with_webhook,
        })
        .unwrap_or_else(|e| panic!("{e:#?}"));
        Scratch(tmp)
    }

    fn dir(&self) -> PathBuf {
        self.0.join("my-op")
    }

    fn read(&self, file: &str) -> String {
        std::fs::read_to_string(self.dir().join(file)).unwrap()
    }

    /// Every file under the scratch directory (staging leftovers too).
    fn snapshot(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        fn walk(dir: &Path, root: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    walk(&path, root, out);
                } else {
                    let rel = path.strip_prefix(root).unwrap().to_path_buf();
                    out.insert(rel, std::fs::read(&path).unwrap());
                }
            }
        }
        let mut out = BTreeMap::new();
        walk(&self.0, &self.0, &mut out);
        out
    }

    fn add_version(&self, v: &str, kind: Option<&str>) -> Result<super::Added, Vec<Diagnostic>> {
        version::add(&version::Options {
            dir: self.dir(),
            kind: kind.map(str::to_string),
            version: v.into(),
        })
    }

    fn add_kind(
        &self,
        k: &str,
        group: Option<&str>,
        version: Option<&str>,
    ) -> Result<super::Added, Vec<Diagnostic>> {
        kind::add(&kind::Options {
            dir: self.dir(),
            kind: k.into(),
            group: group.map(str::to_string),
            version: version.map(str::to_string),
        })
    }

    fn add_webhook(
        &self,
        validating: bool,
        defaulting: bool,
    ) -> Result<super::Added, Vec<Diagnostic>> {
        webhook::add(&webhook::Options {
            dir: self.dir(),
            kind: None,
            version: None,
            validating,
            defaulting,
        })
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn messages(errors: &[Diagnostic]) -> String {
    errors
        .iter()
        .map(|d| format!("{}:{}: {}", d.file.display(), d.line, d.message))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_version_is_added_once_and_wires_the_webhook_server() {
    let s = Scratch::new("version", false);
    let added = s
        .add_version("v2", None)
        .unwrap_or_else(|e| panic!("{}", messages(&e)));
    assert!(added.created.contains(&PathBuf::from("src/api/v2.rs")));
    assert!(added.edited.contains(&PathBuf::from("src/main.rs")));
    let api = s.read("src/api.rs");
    assert!(api.contains("pub mod v2;"), "{api}");
    assert!(
        api.contains("conversion(service = \"my-op-webhook\", namespace = \"my-op-system\")\n"),
        "{api}"
    );
    let v2 = s.read("src/api/v2.rs");
    assert!(
        v2.contains("version = \"v2\",") && v2.contains("storage = false\n"),
        "{v2}"
    );
    assert!(
        v2.contains("impl From<super::MyApplication> for MyApplication"),
        "{v2}"
    );
    assert!(
        !v2.contains("Condition"),
        "unused imports are left out: {v2}"
    );
    let main = s.read("src/main.rs");
    assert!(
        main.contains("webhook::server(ServingCert::from_dir(dir))"),
        "{main}"
    );
    assert!(
        s.read("src/webhook.rs")
            .contains(".conversion(crate::generated::conversion::converter())")
    );
    assert!(
        s.read("src/generated/conversion.rs")
            .contains("spoke::<crate::api::v2::MyApplication")
    );
    assert!(
        s.read("deploy/kustomization.yaml")
            .contains("- webhook_service.yaml")
    );
    assert!(
        s.read("deploy/deployment.yaml")
            .contains("secretName: my-op-webhook-cert")
    );

    // Again: refused, naming what exists; nothing changes.
    let before = s.snapshot();
    let errors = s.add_version("v2", None).unwrap_err();
    assert!(
        messages(&errors).contains("src/api/v2.rs:13: MyApplication v2 exists already"),
        "{}",
        messages(&errors)
    );
    assert_eq!(s.snapshot(), before);

    // A third version reuses the wiring: main.rs is not edited again.
    let added = s
        .add_version("v3", None)
        .unwrap_or_else(|e| panic!("{}", messages(&e)));
    assert!(
        !added.edited.contains(&PathBuf::from("src/main.rs")),
        "{added:?}"
    );
    assert_eq!(s.read("src/webhook.rs").matches(".conversion(").count(), 1);
}

#[test]
fn names_are_checked_before_anything_is_read() {
    let s = Scratch::new("names", false);
    let before = s.snapshot();
    let errors = s.add_version("2", None).unwrap_err();
    assert_eq!(errors[0].file, Path::new("--version"));
    let errors = s.add_version("v2", Some("MyAplication")).unwrap_err();
    assert!(
        messages(&errors).contains("did you mean `MyApplication`?"),
        "{}",
        messages(&errors)
    );
    let errors = s.add_webhook(false, false).unwrap_err();
    assert!(messages(&errors).contains("--validating, --defaulting or both"));
    assert_eq!(s.snapshot(), before);
}

#[test]
fn an_edited_main_is_refused_and_nothing_is_written() {
    let s = Scratch::new("edited", false);
    let main = s.dir().join("src/main.rs");
    let text = s
        .read("src/main.rs")
        .replace("    leader_elect: bool,\n", "    elect: bool,\n");
    std::fs::write(&main, text).unwrap();
    let before = s.snapshot();
    let errors = s.add_webhook(true, false).unwrap_err();
    let text = messages(&errors);
    assert!(
        text.contains("src/main.rs:0: the line `leader_elect: bool,` is not there"),
        "{text}"
    );
    assert!(text.contains("kubegen new --webhook"), "{text}");
    assert_eq!(s.snapshot(), before);
}

#[test]
fn a_file_in_the_way_is_refused() {
    let s = Scratch::new("in-the-way", false);
    std::fs::create_dir_all(s.dir().join("src/api")).unwrap();
    std::fs::write(s.dir().join("src/api/v2.rs"), "// mine\n").unwrap();
    let before = s.snapshot();
    let errors = s.add_version("v2", None).unwrap_err();
    assert!(
        messages(&errors).contains("src/api/v2.rs:0: exists already"),
        "{}",
        messages(&errors)
    );
    assert_eq!(s.snapshot(), before);
}

#[test]
fn webhooks_are_added_once_to_a_crate_made_with_the_server() {
    let s = Scratch::new("webhook", true);
    let main = s.read("src/main.rs");
    assert!(main.contains("--webhook-cert-dir"), "{main}");
    let added = s
        .add_webhook(true, true)
        .unwrap_or_else(|e| panic!("{}", messages(&e)));
    assert_eq!(
        added.edited,
        [
            PathBuf::from("deploy/kustomization.yaml"),
            PathBuf::from("src/api.rs"),
            PathBuf::from("src/webhook.rs")
        ]
    );
    assert_eq!(s.read("src/main.rs"), main);
    let api = s.read("src/api.rs");
    assert!(
        api.contains("    admission(\n        validate,\n        default,\n        service = \"my-op-webhook\","),
        "{api}"
    );
    let server = s.read("src/webhook.rs");
    assert!(server.contains("pub mod my_application_v1;"), "{server}");
    assert!(
        server.contains(".validate::<crate::api::MyApplication>(my_application_v1::validate)"),
        "{server}"
    );
    assert!(
        server.contains(".default::<crate::api::MyApplication>(my_application_v1::default)"),
        "{server}"
    );
    let manifests = s.read("config/webhook/manifests.yaml");
    assert!(
        manifests.contains("path: /validate-stable-example-com-v1-myapplication"),
        "{manifests}"
    );
    assert!(
        s.read("deploy/kustomization.yaml")
            .contains("- ../config/webhook\n")
    );
    assert!(
        s.read("tests/my_application_v1_webhooks.rs")
            .contains("my_op::api::MyApplication")
    );

    let before = s.snapshot();
    let errors = s.add_webhook(false, true).unwrap_err();
    assert!(
        messages(&errors)
            .contains("src/api.rs:12: MyApplication v1 declares `admission(...)` already"),
        "{}",
        messages(&errors)
    );
    assert_eq!(s.snapshot(), before);
}

#[test]
fn a_kind_is_added_once_with_its_controller() {
    let s = Scratch::new("kind", false);
    let added = s
        .add_kind("Backup", None, None)
        .unwrap_or_else(|e| panic!("{}", messages(&e)));
    assert_eq!(
        added.created,
        [
            PathBuf::from("src/api/backup.rs"),
            PathBuf::from("src/controller/backup.rs"),
            PathBuf::from("tests/backup_e2e.rs")
        ]
    );
    assert_eq!(added.what, "kind Backup (stable.example.com/v1)");
    let api = s.read("src/api/backup.rs");
    assert!(api.contains("kind = \"Backup\","), "{api}");
    assert!(api.contains("pub struct BackupStatus"), "{api}");
    assert!(s.read("src/api.rs").contains("\npub mod backup;\n"));
    assert!(s.read("src/controller.rs").contains("\npub mod backup;\n"));
    let main = s.read("src/main.rs");
    assert!(
        main.contains(
            "    let informer = factory.stable().v1().backups();\n    let controller = Controller::builder(informer.informer().clone())\n        .name(\"backup\")"
        ),
        "{main}"
    );
    assert!(
        main.contains(".reconcile(controller::backup::reconcile, ctx.clone());\n    manager.add(controller);\n\n    manager.run().await?;"),
        "{main}"
    );
    assert!(s.read("config/crd/kustomization.yaml").ends_with(
        "- stable.example.com_myapplications.yaml\n- stable.example.com_backups.yaml\n"
    ));
    // `kubegen generate` ran: the CRD, the role and the clients.
    assert!(
        s.read("config/crd/stable.example.com_backups.yaml")
            .contains("kind: Backup")
    );
    let role = s.read("config/rbac/role.yaml");
    assert!(role.contains("backups/status"), "{role}");
    assert!(
        s.read("src/generated/informers/stable_v1.rs")
            .contains("fn backups(")
    );
    for file in ["src/controller/backup.rs", "tests/backup_e2e.rs"] {
        assert!(!s.read(file).contains("{{"), "{file}");
    }

    // Again: refused, naming where it is declared; nothing changes.
    let before = s.snapshot();
    let errors = s.add_kind("Backup", None, None).unwrap_err();
    assert!(
        messages(&errors).contains("src/api/backup.rs:10: Backup (stable.example.com/v1, resource `backups`) exists already"),
        "{}",
        messages(&errors)
    );
    assert_eq!(s.snapshot(), before);

    // Another, in another group and version: registered after the first.
    s.add_kind("Restore", Some("ops.example.com"), Some("v1beta1"))
        .unwrap_or_else(|e| panic!("{}", messages(&e)));
    let main = s.read("src/main.rs");
    let (backup, restore) = (
        main.find("controller::backup::reconcile").unwrap(),
        main.find("factory.ops().v1beta1().restores()").unwrap(),
    );
    assert!(backup < restore, "{main}");
    assert!(
        s.read("src/api.rs")
            .contains("pub mod backup;\npub mod restore;\n")
    );
    // With two groups, a new kind needs --group; an existing one is
    // refused as existing all the same.
    let errors = s.add_kind("Archive", None, None).unwrap_err();
    assert!(
        messages(&errors).contains("--group:0: the crate's kinds are in several groups (ops.example.com, stable.example.com)"),
        "{}",
        messages(&errors)
    );
    let errors = s.add_kind("Backup", None, None).unwrap_err();
    assert!(
        messages(&errors).contains("exists already"),
        "{}",
        messages(&errors)
    );
}

#[test]
fn a_kind_is_refused_before_anything_is_written() {
    let s = Scratch::new("kind-refused", false);
    let before = s.snapshot();
    let errors = s.add_kind("backup", Some("nodot"), Some("1")).unwrap_err();
    let text = messages(&errors);
    for want in [
        "<KIND>:0: `backup` is not a PascalCase kind",
        "--group:0:",
        "--version:0:",
    ] {
        assert!(text.contains(want), "{want}: {text}");
    }
    let errors = s.add_kind("Type", None, None).unwrap_err();
    assert!(messages(&errors).contains("Rust keyword"));
    // The same resource under another spelling of the kind.
    let errors = s.add_kind("Myapplication", None, None).unwrap_err();
    assert!(
        messages(&errors).contains("src/api.rs:10: MyApplication (stable.example.com/v1, resource `myapplications`) exists already"),
        "{}",
        messages(&errors)
    );
    // A first controller that takes the context for itself.
    let main = s
        .read("src/main.rs")
        .replace("reconcile, ctx.clone());", "reconcile, ctx);");
    std::fs::write(s.dir().join("src/main.rs"), main).unwrap();
    // And a module in the way.
    std::fs::create_dir_all(s.dir().join("src/controller")).unwrap();
    std::fs::write(s.dir().join("src/controller/backup.rs"), "// mine\n").unwrap();
    let before_edits = s.snapshot();
    let errors = s.add_kind("Backup", None, None).unwrap_err();
    let text = messages(&errors);
    assert!(
        text.contains("src/controller/backup.rs:0: exists already"),
        "{text}"
    );
    assert!(text.contains("src/main.rs:"), "{text}");
    assert!(text.contains("pass it `ctx.clone()`"), "{text}");
    assert_eq!(s.snapshot(), before_edits);
    assert_ne!(before, before_edits);
}
