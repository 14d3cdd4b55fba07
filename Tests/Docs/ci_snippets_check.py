"""Checks the CI configurations the documentation shows, and the workflow `coordrun init` writes, as their
runners would read them.

    ci_snippets_check.py WORKFLOW DOC...

Run by Tests/EndToEndTests/CISnippetTests.swift. Each ```yaml block of the documents must parse. A GitHub
Actions workflow must pass actionlint (with ShellCheck over its `run:` scripts), and one whose steps run
coordrun must install it first with the init workflow's own steps (the clone, the cache keyed by the
runtime's commit, the build) and read the runtime's repository from somewhere (--repository's URL, or the
repository variable). A Kubernetes Job must pass the Kubernetes API's schema, strictly (kubernetes-validate,
no field the API does not know), mount a volume for every path it writes under /reports, name only volumes it
declares, and hold no ${...} (Kubernetes expands $(VAR) in a command, never ${VAR}). actionlint and
kubernetes-validate are PyPI's, in the same virtual environment as this script's Python (scripts/ensure-deps
--test). Prints one line a problem; exits 1 when there is one, 0 with the count checked.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

import kubernetes_validate
import yaml

workflow_path, docs = sys.argv[1], sys.argv[2:]
problems = []
if shutil.which("shellcheck") is None:
    problems.append("shellcheck is not installed (scripts/ensure-deps --test): actionlint would not check the run: scripts")
checked = 0

with open(workflow_path) as f:
    init = yaml.safe_load(f)
init_steps = {step.get("name") or step.get("uses"): step for step in init["jobs"]["flows"]["steps"]}
cache, build = init_steps["actions/cache@v5"], init_steps["build coordrun"]
clone = 'git clone --depth 1 "$COORDINATOR_REPOSITORY" /tmp/coordinator'


def lint_workflow(where, text):
    """actionlint's findings on one workflow, each a problem. It reads a file inside .github/workflows."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, ".github", "workflows", "workflow.yml")
        os.makedirs(os.path.dirname(path))
        with open(path, "w") as f:
            f.write(text)
        actionlint = os.path.join(os.path.dirname(sys.executable), "actionlint")
        run = subprocess.run([actionlint, "-no-color", "-oneline", path], capture_output=True, text=True, cwd=folder)
        if run.returncode not in (0, 1):
            problems.append("%s: actionlint could not run: %s" % (where, run.stderr.strip() or run.stdout.strip()))
        for line in run.stdout.splitlines():
            problems.append("%s: actionlint: %s" % (where, line.replace(path, "workflow").replace(".github/workflows/workflow.yml:", "line ")))


def check_workflow(where, document):
    for name, job in document["jobs"].items():
        steps = job.get("steps", [])
        runs = [str(step.get("run", "")) for step in steps]
        uses_coordrun = [i for i, run in enumerate(runs) if re.search(r"(^|\s)coordrun ", run)]
        if not uses_coordrun:
            continue
        installed = next((i for i, step in enumerate(steps) if step == build), None)
        if installed is None or installed > uses_coordrun[0]:
            problems.append("%s: job %s runs coordrun before (or without) the init workflow's build step" % (where, name))
        if cache not in steps:
            problems.append("%s: job %s does not cache coordrun's build as the init workflow does" % (where, name))
        if not any(clone in run for run in runs):
            problems.append("%s: job %s does not clone the runtime's repository" % (where, name))
        if "COORDINATOR_REPOSITORY" not in (job.get("env") or {}):
            problems.append("%s: job %s does not say where the runtime's repository is" % (where, name))


def check_job(where, document):
    try:
        kubernetes_validate.validate(document, kubernetes_validate.latest_version(), strict=True)
    except kubernetes_validate.ValidationError as error:
        problems.append("%s: not a valid Kubernetes %s: %s at %s" % (where, document.get("kind"), error.message,
                                                                      "/".join(str(p) for p in error.path)))
    spec = document["spec"]["template"]["spec"]
    volumes = {volume["name"] for volume in spec.get("volumes", [])}
    for container in spec["containers"]:
        mounts = {mount["name"]: mount["mountPath"] for mount in container.get("volumeMounts", [])}
        for name in mounts:
            if name not in volumes:
                problems.append("%s: container %s mounts %s, which no volume is" % (where, container["name"], name))
        for argument in container.get("command", []) + container.get("args", []):
            if argument.startswith("/reports") and not any(argument.startswith(path) for path in mounts.values()):
                problems.append("%s: container %s writes %s, on no volume" % (where, container["name"], argument))


check_workflow(workflow_path, init)
lint_workflow(workflow_path, open(workflow_path).read())
checked += 1
for doc in docs:
    text = open(doc).read()
    for number, block in enumerate(re.findall(r"```yaml\n(.*?)```", text, re.S), 1):
        where = "%s (yaml block %d)" % (doc, number)
        try:
            document = yaml.safe_load(block)
        except yaml.YAMLError as error:
            problems.append("%s: does not parse: %s" % (where, error))
            continue
        checked += 1
        if isinstance(document, dict) and "jobs" in document:
            check_workflow(where, document)
            lint_workflow(where, block)
        if isinstance(document, dict) and document.get("kind") == "Job":
            if "${" in block:
                problems.append("%s: ${...} is never expanded in a Kubernetes manifest" % where)
            check_job(where, document)

for problem in problems:
    print(problem)
if problems:
    sys.exit(1)
print("checked %d configurations" % checked)
