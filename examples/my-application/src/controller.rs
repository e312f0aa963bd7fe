//! The permissions the MyApplication controller needs, declared where the
//! controller lives so `kubegen generate` writes them to
//! `config/rbac/role.yaml`.

use kubegen::rbac;

/// The API objects the controller reads and writes.
#[rbac(groups = ["stable.example.com"], resources = ["myapplications"], verbs = ["get", "list", "watch"])]
#[rbac(groups = ["stable.example.com"], resources = ["myapplications/status"], verbs = ["get", "update", "patch"])]
#[rbac(groups = ["apps"], resources = ["deployments"], verbs = ["get", "list", "watch", "create", "update", "patch", "delete"])]
#[rbac(groups = [""], resources = ["services"], verbs = ["get", "list", "watch", "create", "update", "patch", "delete"])]
#[rbac(groups = ["events.k8s.io"], resources = ["events"], verbs = ["create", "patch"])]
#[rbac(groups = ["coordination.k8s.io"], resources = ["leases"], verbs = ["get", "create", "update"])]
pub const PERMISSIONS: () = ();
