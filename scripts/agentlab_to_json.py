#!/usr/bin/env python3
"""Write verdict_steps.json beside each AgentLab / BrowserGym experiment, for Verdict to import.

AgentLab keeps an experiment's goal, actions, thinking and element boxes in Python pickles (goal_object.pkl.gz,
step_<k>.pkl.gz, exp_args.pkl). Verdict never opens pickles: loading one can run code, and only the environment
that wrote them has the classes they need. Run this script yourself, with the Python environment that ran the
experiments (the one where `import agentlab` works), on the results you want to review:

    python scripts/agentlab_to_json.py ~/agentlab_results/2025-01-22_11-03-29_my_study

It finds the experiment folders at any depth, reads their pickles and writes `verdict_steps.json` in each one.
Then import the folder as usual (`npm run cli -- import <folder>` or the Import page): Verdict reads the JSON and
never the pickles. Nothing else in the folders is changed.

Options:
    --skip-existing   leave experiments that already have verdict_steps.json alone
    --no-elements     leave out the Set-of-Marks element boxes (smaller files)
    --dry-run         list the experiments that would be converted, write nothing

Exit status: 0 when every experiment was converted, 1 when some could not be, 2 for a usage error.
Only the Python standard library is used; pickles need the packages that wrote them (agentlab, browsergym, numpy).
"""

import argparse
import gzip
import json
import math
import os
import pickle
import re
import sys
from pathlib import Path

FORMAT = "verdict.agentlab-steps"
VERSION = 1
OUTPUT = "verdict_steps.json"
MARKERS = ("exp_args.pkl", "summary_info.json", "step_0.pkl.gz", "goal_object.pkl.gz")
STEP_FILE = re.compile(r"^step_(\d+)\.pkl\.gz$")


def field(obj, name, default=None):
    """A field of an AgentLab object or of the dict an older version saved instead."""
    if obj is None:
        return default
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


def as_text(value):
    if value is None:
        return None
    text = str(value)
    return text if text.strip() else None


def as_number(value):
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def as_bool(value):
    return None if value is None else bool(value)


def goal_text(goal_object):
    """The text parts of a goal (a list of OpenAI-style content parts, or a plain string)."""
    if goal_object is None:
        return None
    if isinstance(goal_object, str):
        return as_text(goal_object)
    parts = []
    for part in goal_object:
        if field(part, "type") == "text" and field(part, "text"):
            parts.append(str(field(part, "text")))
    return as_text("\n".join(parts))


def element_boxes(obs):
    """BrowserGym's extra_element_properties: {bid: {bbox, visibility, clickable, set_of_marks}}."""
    properties = field(obs, "extra_element_properties") or {}
    out = []
    for bid, props in properties.items():
        box = field(props, "bbox")
        bbox = None
        if box is not None:
            numbers = [as_number(v) for v in list(box)[:4]]
            bbox = numbers if len(numbers) == 4 and all(n is not None for n in numbers) else None
        out.append({
            "bid": str(bid),
            "bbox": bbox,
            "visibility": as_number(field(props, "visibility")),
            "clickable": as_bool(field(props, "clickable")),
            "set_of_marks": as_bool(field(props, "set_of_marks")),
        })
    return out


def load(path, zipped):
    opener = gzip.open if zipped else open
    with opener(path, "rb") as f:
        return pickle.load(f)


def why(error):
    if isinstance(error, (ModuleNotFoundError, AttributeError)):
        return f"{error} (run this script with the Python environment that ran the experiments)"
    return f"{type(error).__name__}: {error}"


def is_experiment(folder):
    return any((folder / marker).exists() for marker in MARKERS)


def find_experiments(root):
    """Experiment folders at any depth; AgentLab's set-aside runs (_name) and hidden folders are left out."""
    if is_experiment(root):
        return [root]
    found = []
    for current, dirs, _files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")))
        here = Path(current)
        if here != root and is_experiment(here):
            found.append(here)
            dirs[:] = []
    return found


def convert(folder, with_elements=True):
    """What Verdict needs from one experiment's pickles, as a JSON-ready dict."""
    errors = []
    out = {"format": FORMAT, "version": VERSION}

    exp_args = None
    if (folder / "exp_args.pkl").exists():
        try:
            exp_args = load(folder / "exp_args.pkl", zipped=False)
        except Exception as error:  # a damaged or foreign pickle: say which, go on with the steps
            errors.append(f"exp_args.pkl: {why(error)}")
    agent_args = field(exp_args, "agent_args")
    env_args = field(exp_args, "env_args")
    out["exp_name"] = as_text(field(exp_args, "exp_name"))
    out["agent_name"] = as_text(field(agent_args, "agent_name"))
    out["model_name"] = as_text(field(field(agent_args, "chat_model_args"), "model_name"))
    out["task_name"] = as_text(field(env_args, "task_name"))
    seed = field(env_args, "task_seed")
    out["task_seed"] = int(seed) if seed is not None else None
    max_steps = field(env_args, "max_steps")
    out["max_steps"] = int(max_steps) if max_steps else None

    goal = None
    if (folder / "goal_object.pkl.gz").exists():
        try:
            goal = goal_text(load(folder / "goal_object.pkl.gz", zipped=True))
        except Exception as error:
            errors.append(f"goal_object.pkl.gz: {why(error)}")

    numbers = sorted(int(m.group(1)) for m in (STEP_FILE.match(p.name) for p in folder.iterdir()) if m)
    steps = []
    for k in numbers:
        name = f"step_{k}.pkl.gz"
        try:
            info = load(folder / name, zipped=True)
        except Exception as error:
            errors.append(f"{name}: {why(error)}")
            continue
        obs = field(info, "obs") or {}
        agent_info = field(info, "agent_info") or {}
        if goal is None:
            goal = goal_text(field(obs, "goal_object")) or as_text(field(obs, "goal"))
        number = field(info, "step")
        step = {
            "step": k if number is None else int(number),
            "action": as_text(field(info, "action")),
            "think": as_text(field(agent_info, "think")),
            "url": as_text(field(obs, "url")),
            "last_action_error": as_text(field(obs, "last_action_error")),
            "reward": as_number(field(info, "reward")),
            "terminated": as_bool(field(info, "terminated")),
            "truncated": as_bool(field(info, "truncated")),
        }
        if with_elements:
            step["elements"] = element_boxes(obs)
        steps.append(step)
    out["goal"] = goal
    out["steps"] = steps
    out["errors"] = errors
    return out


def write(folder, data):
    target = folder / OUTPUT
    temporary = folder / f".{OUTPUT}.tmp"
    with open(temporary, "w", encoding="utf-8") as f:
        json.dump(data, f, ensure_ascii=False, allow_nan=False)
    os.replace(temporary, target)
    return target


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="agentlab_to_json.py",
        description="Write verdict_steps.json beside each AgentLab / BrowserGym experiment found under the folders given.",
    )
    parser.add_argument("folders", nargs="+", metavar="FOLDER", help="a study folder, a results folder or one experiment")
    parser.add_argument("--skip-existing", action="store_true", help=f"leave experiments that already have {OUTPUT} alone")
    parser.add_argument("--no-elements", action="store_true", help="leave out the Set-of-Marks element boxes")
    parser.add_argument("--dry-run", action="store_true", help="list the experiments, write nothing")
    args = parser.parse_args(argv)

    roots = [Path(f).expanduser() for f in args.folders]
    for root in roots:
        if not root.is_dir():
            parser.error(f"{root}: no such folder")

    experiments = [e for root in roots for e in find_experiments(root)]
    if not experiments:
        print("No AgentLab experiment folders found (folders with exp_args.pkl, summary_info.json or step_0.pkl.gz).", file=sys.stderr)
        return 1

    converted = skipped = failed = 0
    for folder in experiments:
        if args.skip_existing and (folder / OUTPUT).exists():
            skipped += 1
            print(f"skipped   {folder} ({OUTPUT} exists)")
            continue
        if args.dry_run:
            print(f"would convert {folder}")
            continue
        data = convert(folder, with_elements=not args.no_elements)
        if not data["steps"] and data["errors"]:
            failed += 1
            print(f"FAILED    {folder}: {data['errors'][0]}", file=sys.stderr)
            continue
        write(folder, data)
        converted += 1
        note = f", {len(data['errors'])} file(s) unreadable: {data['errors'][0]}" if data["errors"] else ""
        print(f"converted {folder} ({len(data['steps'])} steps{note})")

    if args.dry_run:
        print(f"{len(experiments)} experiment(s) found; nothing written (--dry-run).")
        return 0
    print(f"{converted} converted, {skipped} skipped, {failed} failed.")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
