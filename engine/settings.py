"""All user settings in one typed class, with defaults, bounds and descriptions.

Settings live in ``settings.json`` in the OS user-config directory
(platformdirs). Writes are atomic (temp file + ``os.replace``) so a crash never
leaves a half-written file. Environment variables override the file for the
settings named in :data:`ENV_OVERRIDES`. The site file (:mod:`engine.site`), which
only administrators can write, overrides both.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from engine.errors import SettingsError
from engine.paths import APP_NAME, atomic_write_text, config_dir, data_dir, keep_aside, settings_file  # noqa: F401 - re-exported


# Environment variable -> setting name.
ENV_OVERRIDES = {
    "HR_ASSISTANT_MODEL": "model_path",
    "HR_ASSISTANT_MODEL_URL": "model_url",
    "HR_ASSISTANT_EMPLOYEES": "employees_path",
    "HR_ASSISTANT_POLICIES": "policies_path",
    "HR_ASSISTANT_EMBEDDING_MODEL": "embedding_model_path",
}


def _setting(default: Any, description: str, lo: float | None = None, hi: float | None = None,
             choices: tuple[str, ...] | None = None):
    return field(default=default, metadata={"description": description, "min": lo, "max": hi, "choices": choices})


@dataclass
class Settings:
    """Every setting of the app. Paths are strings; empty means 'use the default'."""

    model_path: str = _setting("", "GGUF chat model file. Empty: the first model found in the model folders.")
    model_url: str = _setting("", "Site inference server (OpenAI-compatible: llama.cpp's server or vLLM), e.g. "
                              "https://gpu-host:8443. Empty: the model runs on this computer.")
    model_server: str = _setting("auto", "Which server model_url is: 'auto' (ask it), 'llama.cpp', "
                                 "'llama-cpp-python' or 'vllm'.", choices=("auto", "llama.cpp", "llama-cpp-python",
                                                                           "vllm"))
    model_ca: str = _setting("", "PEM file of the CA that the model server's TLS certificate must chain to. Empty: the "
                             "OS's certificate store. A site file fixes it.")
    allow_plain_http: bool = _setting(False, "Allow model_url to be plain http:// to another machine (each question "
                                      "then crosses the network unencrypted). A site file fixes it.")
    server_timeout: int = _setting(300, "Seconds to wait for the inference server's next token.", 5, 3600)
    n_ctx: int = _setting(4096, "Context size in tokens (prompt plus answer).", 512, 131072)
    n_threads: int = _setting(0, "CPU threads for the model; 0 picks the number of physical cores.", 0, 256)
    n_gpu_layers: int = _setting(0, "Layers offloaded to the GPU; 0 = CPU only, -1 = all.", -1, 1000)
    temperature: float = _setting(0.0, "Sampling temperature; 0 (greedy) always picks the most likely token, which suits "
                                       "small models best.", 0.0, 2.0)
    seed: int = _setting(0, "Random seed for sampling, so answers are repeatable.", 0, 2**31 - 1)
    max_steps: int = _setting(6, "Most tool calls the agent may make for one question.", 1, 20)
    max_answer_tokens: int = _setting(700, "Most tokens the model may write in one step.", 64, 4096)
    agent_mode: str = _setting("route", "How a question is worked: 'route' (the person's record and the policy "
                               "passages looked up first, the question routed to a fixed pipeline, the model picking "
                               "and filling slots), 'react' (one tool call per model call), 'plan' (every tool call "
                               "planned at once, then the answer) or 'auto' (a plan for a question with several "
                               "parts, ReAct otherwise).", choices=("route", "react", "plan", "auto"))
    rule_readers: str = _setting("", "Rules code settles by itself, in the order tried: reader names, comma-separated "
                                 "(cap, rate, multiple, unit_pay, per_unit, total). Empty: all, in their own order.")
    route_tiebreak: str = _setting("model", "How a question whose kind the nearest labelled questions do not settle "
                                   "clearly is routed: 'model' (the model picks among the few kinds left) or 'vote' "
                                   "(their heaviest kind, with no model call: the first words about 0.6 s sooner on "
                                   "2 cores, and a few more wrong answers).", choices=("model", "vote"))
    turn_format: str = _setting("react", "How the model writes a step: 'react' (Thought/Action text), 'tool-call' "
                                "(the model's own tool calls) or 'auto' (tool calls where the model's chat template "
                                "has them).", choices=("react", "tool-call", "auto"))
    employees_path: str = _setting("", "Employee data file (CSV or XLSX). Empty: the sample company.")
    policies_path: str = _setting("", "Policy documents folder or file. Empty: the sample company.")
    leave_requests: bool = _setting(False, "Let the assistant prepare leave requests (stored only when you approve "
                                    "each one).")
    holidays_path: str = _setting("", "Public holidays for leave requests (CSV: YYYY-MM-DD,name). Empty: the file "
                                  "holidays.csv beside the employee file, if any.")
    embedding_model_path: str = _setting("", "Local sentence-transformers model folder. Empty: all-MiniLM-L6-v2.")
    user: str = _setting("", "Persona last chosen on the sample company (or by HR's 'view as'); everyone else is "
                         "their OS account.")

    def validate(self) -> None:
        """Raise :class:`SettingsError` naming every value that is out of bounds."""
        problems = []
        for f in fields(self):
            value = getattr(self, f.name)
            expected = type(f.default)
            if expected is float and isinstance(value, int) and not isinstance(value, bool):
                value = float(value)
                setattr(self, f.name, value)
            if not isinstance(value, expected) or (isinstance(value, bool) and expected is not bool):
                problems.append(f"{f.name} must be a {expected.__name__}, not {value!r}")
                continue
            choices = f.metadata.get("choices")
            if choices and value not in choices:
                problems.append(f"{f.name} = {value!r} is not one of {', '.join(choices)}")
                continue
            if isinstance(value, float) and not math.isfinite(value):
                problems.append(f"{f.name} must be a finite number, not {value!r}")
                continue
            lo, hi = f.metadata["min"], f.metadata["max"]
            if lo is not None and value < lo or hi is not None and value > hi:
                problems.append(f"{f.name} = {value} is outside {lo}..{hi} ({f.metadata['description']})")
        if problems:
            raise SettingsError("Invalid settings: " + "; ".join(problems) + ".",
                                hint="Fix them in the settings dialog or in settings.json.")

    @classmethod
    def describe(cls) -> dict[str, dict[str, Any]]:
        """Name -> default, bounds and description, for help texts and the settings dialog."""
        return {f.name: {"default": f.default, **f.metadata} for f in fields(cls)}

    def replace(self, **changes: Any) -> "Settings":
        new = dataclasses.replace(self, **changes)
        new.validate()
        return new


def load_settings(path: Path | None = None, *, env: bool = True) -> Settings:
    """Load settings from disk (defaults where absent), then apply environment overrides.

    A damaged settings file is not fatal: it is kept aside as ``settings.json.bad``
    and defaults are used, so the app always starts.
    """
    path = path or settings_file()
    data: dict[str, Any] = {}
    if path.exists():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(data, dict):
                raise ValueError("not a JSON object")
        except (OSError, ValueError, RecursionError):
            keep_aside(path)
            data = {}
    known = {f.name for f in fields(Settings)}
    settings = Settings(**{k: v for k, v in data.items() if k in known})
    if env:
        for var, name in ENV_OVERRIDES.items():
            if os.environ.get(var):
                setattr(settings, name, os.environ[var])
    try:
        settings.validate()
    except SettingsError:
        # Fall back field by field, keeping every valid value the user set.
        defaults = Settings()
        for f in fields(Settings):
            try:
                Settings(**{f.name: getattr(settings, f.name)}).validate()
            except SettingsError:
                setattr(settings, f.name, getattr(defaults, f.name))
    from engine.site import load_site

    # What IT fixes in the site file wins over the user's file and environment. A damaged or
    # untrusted site file stops here (SiteFileError): guessing could hand out rights.
    return load_site().apply(settings)


def save_settings(settings: Settings, path: Path | None = None) -> Path:
    settings.validate()
    path = path or settings_file()
    atomic_write_text(path, json.dumps(dataclasses.asdict(settings), indent=2, sort_keys=True) + "\n")
    return path
