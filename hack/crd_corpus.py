#!/usr/bin/env python3
"""Helper of hack/crd-corpus.sh (run that script, not this one).

    crd_corpus.py LOCK OUTDIR

Downloads every module of the pinned list LOCK with `go mod download -json`
(default GOMODCACHE), then writes each CustomResourceDefinition (apiextensions
.k8s.io/v1) found under the entry's globs to OUTDIR/<project>/<metadata.name>.yaml,
byte for byte as the YAML document appears in its source file, plus
OUTDIR/MANIFEST.tsv. Progress, notes and the summary table go to stderr.
Any failure exits non-zero; the caller then throws OUTDIR away.
"""

import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import yaml


class Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # libyaml is ~20x faster
    """Safe loader that reads a plain `=` (YAML 1.1's "value" tag, e.g. in
    Prometheus Operator's `enum: [=, !=]`) as the string it is in YAML 1.2."""


Loader.add_constructor("tag:yaml.org,2002:value", yaml.SafeLoader.construct_yaml_str)

BIG = 500 * 1024  # "large CRD" threshold of the summary
PROJECT_RE = re.compile(r"[a-z0-9][a-z0-9._-]*")
NAME_RE = re.compile(r"[a-z0-9]([-a-z0-9.]*[a-z0-9])?")  # DNS subdomain: safe file name
# A document separator line: `---`, optionally followed by blanks or a comment.
SEPARATOR_RE = re.compile(rb"---[ \t]*(#[^\r\n]*)?\r?\n?")
# A Helm template has lines that are template actions (`{{- if .Values.x }}`,
# `{{ include ... }}`). `{{ .cluster.name }}` or `{{args.x}}` *inside* a
# description is data (Cluster API, Argo Rollouts) and must not count.
HELM_LINE_RE = re.compile(rb"^[ \t]*\{\{", re.M)


def log(msg):
    print(f"[crd-corpus] {msg}", file=sys.stderr, flush=True)


def fail(msg):
    log(f"error: {msg}")
    sys.exit(1)


def parse_lock(path):
    entries, seen = [], set()
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            fields = line.split()
            where = f"{path}:{n}"
            if len(fields) < 3:
                fail(f"{where}: expected `project module@version path-glob...`, got: {line}")
            project, modver, globs = fields[0], fields[1], fields[2:]
            if not PROJECT_RE.fullmatch(project):
                fail(f"{where}: bad project name {project!r}")
            if project in seen:
                fail(f"{where}: project {project} listed twice")
            seen.add(project)
            if modver.count("@") != 1 or not modver.split("@")[1].startswith("v"):
                fail(f"{where}: {modver!r} is not module@vX.Y.Z")
            for g in globs:
                if g.startswith("/") or ".." in g.split("/"):
                    fail(f"{where}: glob {g!r} must stay inside the module")
            entries.append((project, modver, globs))
    if not entries:
        fail(f"{path}: no projects listed")
    return entries


def escape_module_path(path):
    """The module cache's case encoding: `A` becomes `!a`."""
    return re.sub(r"[A-Z]", lambda m: "!" + m.group(0).lower(), path)


def download(modver, modcache, workdir):
    """Returns (Dir, zip bytes, seconds, was it already in the module cache)."""
    module, version = modver.split("@")
    cached = os.path.isdir(os.path.join(modcache, f"{escape_module_path(module)}@{version}"))
    start = time.monotonic()
    # Run outside any go.mod (workdir is empty) so only the named module is fetched.
    proc = subprocess.run(
        ["go", "mod", "download", "-json", modver],
        cwd=workdir, capture_output=True, text=True,
    )
    secs = time.monotonic() - start
    info = {}
    try:
        info = json.loads(proc.stdout) if proc.stdout.strip() else {}
    except json.JSONDecodeError:
        pass
    if proc.returncode != 0 or info.get("Error") or not info.get("Dir"):
        detail = "\n".join(s for s in (info.get("Error"), proc.stderr.strip()) if s)
        fail(f"cannot download module {modver} through the Go module proxy:\n"
             f"{detail or proc.stdout.strip() or 'go mod download gave no Dir'}")
    zip_bytes = os.path.getsize(info["Zip"]) if info.get("Zip") and os.path.exists(info["Zip"]) else 0
    return info["Dir"], zip_bytes, secs, cached


def split_documents(data):
    """Yields the bytes of each YAML document of a multi-document file."""
    doc = []
    for line in data.splitlines(keepends=True):
        if SEPARATOR_RE.fullmatch(line):
            yield b"".join(doc)
            doc = []
        else:
            doc.append(line)
    yield b"".join(doc)


def is_empty(doc):
    return all(not l.strip() or l.lstrip().startswith(b"#") for l in doc.splitlines())


def crds_in_file(path, rel):
    """Yields (name, versions, document bytes) for every v1 CRD of one file."""
    with open(path, "rb") as f:
        data = f.read()
    for i, doc in enumerate(split_documents(data)):
        if is_empty(doc):
            continue
        if HELM_LINE_RE.search(doc):
            log(f"note: {rel} document {i}: Helm template, skipped")
            continue
        try:
            obj = yaml.load(doc.decode("utf-8"), Loader=Loader)
        except (UnicodeDecodeError, yaml.YAMLError) as e:
            if b"{{" in doc:
                log(f"note: {rel} document {i}: Helm template (not YAML), skipped")
                continue
            fail(f"{rel} document {i} is not valid YAML: {e}")
        if not isinstance(obj, dict) or obj.get("kind") != "CustomResourceDefinition":
            continue
        if obj.get("apiVersion") != "apiextensions.k8s.io/v1":
            log(f"note: {rel}: skipping {obj.get('apiVersion')} CRD")
            continue
        name = (obj.get("metadata") or {}).get("name")
        if not isinstance(name, str) or not NAME_RE.fullmatch(name):
            fail(f"{rel} document {i}: CRD has no usable metadata.name ({name!r})")
        versions = [v.get("name", "?") for v in (obj.get("spec") or {}).get("versions") or []]
        yield name, versions, doc


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    lock, out = sys.argv[1], sys.argv[2]
    entries = parse_lock(lock)

    modcache = subprocess.run(["go", "env", "GOMODCACHE"], capture_output=True,
                              text=True, check=True).stdout.strip()
    log(f"downloading {len(entries)} modules into {modcache}")
    dirs, fetched_bytes, all_bytes = {}, 0, 0
    with tempfile.TemporaryDirectory(prefix="crd-corpus-go-") as workdir:
        for project, modver, _ in entries:
            d, zb, secs, cached = download(modver, modcache, workdir)
            dirs[project] = d
            all_bytes += zb
            fetched_bytes += 0 if cached else zb
            log(f"  {modver:<62} {zb / 1e6:6.1f} MB zip {secs:5.1f} s"
                f"{'  (already in module cache)' if cached else ''}")
    log(f"modules: {all_bytes / 1e6:.1f} MB of zips, {fetched_bytes / 1e6:.1f} MB downloaded now")

    manifest = [("project", "crd", "versions", "bytes", "source")]
    summary = []
    for project, modver, globs in entries:
        root = dirs[project]
        files = set()
        for g in globs:
            hits = [p for p in glob.glob(g, root_dir=root, recursive=True)
                    if os.path.isfile(os.path.join(root, p))]
            if not hits:
                fail(f"{project}: glob {g!r} matches no file in {modver}")
            files.update(hits)
        found = {}  # name -> (rel, versions, doc)
        for rel in sorted(files):
            for name, versions, doc in crds_in_file(os.path.join(root, rel), f"{modver}/{rel}"):
                if name in found:
                    log(f"note: {project}: duplicate CRD {name} in {rel}; keeping {found[name][0]}")
                    continue
                found[name] = (rel, versions, doc)
        if not found:
            fail(f"{project}: no apiextensions.k8s.io/v1 CRD under {' '.join(globs)} in {modver}")
        os.makedirs(os.path.join(out, project))
        for name in sorted(found):
            rel, versions, doc = found[name]
            with open(os.path.join(out, project, f"{name}.yaml"), "wb") as f:
                f.write(doc)
            manifest.append((project, name, ",".join(versions), str(len(doc)), f"{modver}/{rel}"))
        summary.append((project, len(found),
                        sum(len(v[1]) > 1 for v in found.values()),
                        sum(len(v[2]) > BIG for v in found.values()),
                        max(len(v[2]) for v in found.values())))

    with open(os.path.join(out, "MANIFEST.tsv"), "w", encoding="utf-8") as f:
        f.writelines("\t".join(row) + "\n" for row in manifest)

    total = f"total ({len(summary)} projects)"
    width = max(len(s[0]) for s in summary + [(total,)])
    head = f"{'project':<{width}}  {'CRDs':>5}  {'multi-version':>13}  {'>500KB':>6}  {'largest bytes':>13}"
    log(head)
    log("-" * len(head))
    for p, n, mv, big, largest in summary:
        log(f"{p:<{width}}  {n:>5}  {mv:>13}  {big:>6}  {largest:>13}")
    log("-" * len(head))
    log(f"{total:<{width}}  {sum(s[1] for s in summary):>5}  "
        f"{sum(s[2] for s in summary):>13}  {sum(s[3] for s in summary):>6}  "
        f"{max(s[4] for s in summary):>13}")


if __name__ == "__main__":
    main()
