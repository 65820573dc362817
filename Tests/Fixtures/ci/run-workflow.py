"""Runs one job of a GitHub Actions workflow the way a runner would, for the tests.

Usage: run-workflow.py WORKFLOW JOB WORKSPACE STUBS_LOG ENV_JSON

`run` steps execute in order with `bash --noprofile --norc -eo pipefail`, in WORKSPACE,
with the workflow's, the job's and the step's `env` (ENV_JSON overrides, as a user's
repository variables would), RUNNER_TEMP, GITHUB_PATH (lines added there are put at the
front of PATH for later steps) and `${{ ... }}` expressions from a fixed context. `uses`
steps: actions/checkout is the WORKSPACE itself; any other action is recorded in STUBS_LOG
with its `with:` values, expressions expanded, instead of run (it would talk to the forge).
A step whose command fails stops the job, as on a runner; the exit status is that step's.
"""
import json, os, re, subprocess, sys, tempfile
import yaml

workflow_path, job_name, workspace, stubs_log, overrides = sys.argv[1:6]
workflow = yaml.safe_load(open(workflow_path, encoding="utf-8"))
job = workflow["jobs"][job_name]
runner_temp = tempfile.mkdtemp(prefix="runner-temp-")
github_path = os.path.join(runner_temp, "github-path")
open(github_path, "w").close()
context = {
    "runner.temp": runner_temp,
    "github.token": "stub-token",
    "github.event.pull_request.number": "7",
}


def expand(text):
    def one(match):
        name = match.group(1).strip()
        if name not in context:
            raise SystemExit(f"run-workflow: no value for expression '{name}'")
        return context[name]
    return re.sub(r"\$\{\{(.*?)\}\}", one, str(text))


base_env = dict(os.environ)
for scope in (workflow.get("env") or {}, job.get("env") or {}):
    base_env.update({key: expand(value) for key, value in scope.items()})
base_env.update(json.loads(overrides))
base_env.update({"RUNNER_TEMP": runner_temp, "GITHUB_PATH": github_path, "GITHUB_WORKSPACE": workspace, "CI": "true"})

for number, step in enumerate(job["steps"], 1):
    name = step.get("name") or step.get("uses") or f"step {number}"
    if "uses" in step:
        if step["uses"].startswith("actions/checkout@"):
            continue
        with open(stubs_log, "a", encoding="utf-8") as log:
            log.write(json.dumps({"uses": step["uses"], "with": {k: expand(v) for k, v in (step.get("with") or {}).items()}}) + "\n")
        continue
    env = dict(base_env)
    env.update({key: expand(value) for key, value in (step.get("env") or {}).items()})
    added = [line.strip() for line in open(github_path, encoding="utf-8") if line.strip()]
    env["PATH"] = ":".join(list(reversed(added)) + [env["PATH"]])
    script = os.path.join(runner_temp, f"step-{number}.sh")
    with open(script, "w", encoding="utf-8") as file:
        file.write(expand(step["run"]))
    print(f"::step {number}: {name}", flush=True)
    status = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", script], cwd=workspace, env=env).returncode
    if status != 0:
        print(f"::step {number} failed with status {status}", flush=True)
        sys.exit(status)
