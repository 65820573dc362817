"""Runs one job of a GitLab CI file the way a shell runner would, for the tests.

Usage: run-gitlab-job.py FILE JOB WORKSPACE ENV_JSON

`before_script` and `script` run as one bash session (`set -eo pipefail`, as the runner
does), in WORKSPACE, with the job's `variables` (ENV_JSON overrides them and adds the CI_*
variables a pipeline would set). An `exit 0` in a script line ends the job successfully,
as on a runner. Prints the job's output; exits with its status.
"""
import json, os, shlex, subprocess, sys
import yaml

path, job_name, workspace, overrides = sys.argv[1:5]
job = yaml.safe_load(open(path, encoding="utf-8"))[job_name]
env = dict(os.environ)
env.update({key: str(value) for key, value in (job.get("variables") or {}).items()})
env.update(json.loads(overrides))
lines = ["set -eo pipefail"]
for line in (job.get("before_script") or []) + (job.get("script") or []):
    lines.append(f"echo {shlex.quote('$ ' + line.splitlines()[0])}")
    lines.append(line)
sys.exit(subprocess.run(["bash", "--noprofile", "--norc", "-c", "\n".join(lines)], cwd=workspace, env=env).returncode)
