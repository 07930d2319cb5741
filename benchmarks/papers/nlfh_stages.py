"""What `nlfh_figure2.py` keeps in --stages_dir so that a run stopped part way (Ctrl-C, SIGTERM,
the end of a session) goes on where it stopped: finished solves, solves in progress and the
depth-limited rows done.

* `Stages.kept_or_solved`: a finished solve, one .npz each (the per-entry average strategies
  and the figures they gave);
* `Stages.partial`: a CFR+ solve in progress (`PartialSolve`: the solver's `state`, kept every
  `KEEP_SECONDS` and where the solve stops early), which the next run restores and continues
  bit for bit;
* `Stages.generated` / `Stages.keep_generated`: the self-generative values and continuations,
  and `Stages.generating` / `Stages.keep_generating` the set as it grows (unweakened, one value
  at a time), which the next run goes on from;
* `Stages.values` / `Stages.keep_values`: other leaf values as they grow (--leaves=translated);
* `Stages.rows` / `Stages.keep_rows`: the depth-limited rows finished so far.

Every file records the settings it was made with (`tag`); another game, deck, stack or
iteration count starts again and replaces it.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable

import numpy as np
from absl import logging as absl_logging

from ospiel_ext.algorithms.depth_limited.ranges.leaves import LeafValues
from ospiel_ext.algorithms.poker import range_cfr, range_tree
from ospiel_ext.runtime import files

KEEP_SECONDS = 600.0
"""How often a solve in progress is kept (and once more where it stops early)."""


class Stages:
    """The files of --stages_dir for settings `tag` (module docstring); none without a folder.

    `prefix` begins every file name: another set of stages of the same settings.
    """

    def __init__(self, directory: str | None, tag: str, prefix: str = ""):
        self.directory, self.tag, self.prefix = directory, tag, prefix

    def tagged(self, *settings: object) -> Stages:
        """The same folder for files that depend on more `settings` (JSON) than these."""
        return Stages(self.directory, json.dumps([self.tag, *settings]), self.prefix)

    def prefixed(self, prefix: str) -> Stages:
        """The same settings in files whose names begin with `prefix` too."""
        return Stages(self.directory, self.tag, self.prefix + prefix)

    def path(self, name: str) -> str:
        """The file `name` of the folder."""
        return os.path.join(str(self.directory), self.prefix + name)

    def read(self, name: str) -> dict[str, np.ndarray] | None:
        """The .npz `name` if it was made with these settings."""
        if self.directory is None:
            return None
        try:
            data = files.read_npz(self.path(name), name)
        except FileNotFoundError:
            return None
        except ValueError as e:  # not one of ours: made again and replaced
            absl_logging.warning("%s; starting it again", e)
            return None
        return data if str(data.get("tag")) == self.tag else None

    def remove(self, name: str) -> None:
        """Removes the file `name` if it is there (nothing without a folder)."""
        if self.directory is not None:
            try:
                os.remove(self.path(name))
            except FileNotFoundError:
                pass

    def write(self, name: str, arrays: dict[str, np.ndarray]) -> None:
        """Writes the .npz `name` (atomically) with these settings' tag."""
        os.makedirs(str(self.directory), exist_ok=True)
        with files.output(self.path(name), binary=True) as f:
            np.savez(f, tag=np.array(self.tag), **arrays)

    def load(self, name: str, tree: range_tree.RangeTree) -> tuple[list, np.ndarray] | None:
        """The stage's strategies (per round and group) and figures, if kept for these settings."""
        data = self.read(f"{name}.npz")
        if data is None or "figures" not in data:
            return None
        strategy = read_strategy(data, "s", tree)
        return None if strategy is None else (strategy, data["figures"])

    def kept_or_solved(
        self,
        name: str,
        tree: range_tree.RangeTree,
        solve: Callable[[], tuple[list, list[float], str]],
    ) -> tuple[list, list[float], str]:
        """The stage kept for these settings, else `solve()`'s (kept if it finished)."""
        kept = self.load(name, tree)
        if kept is not None:
            return kept[0], kept[1].tolist(), "iterations"
        strategy, figures, stop_reason = solve()
        if stop_reason == "iterations":
            self.save(name, strategy, figures)
        return strategy, figures, stop_reason

    def save(self, name: str, strategy: list, figures: list[float]) -> None:
        """Keeps a finished stage, in place of its solve in progress (nothing without a folder)."""
        if self.directory is None:
            return
        arrays = strategy_arrays(strategy, "s")
        self.write(f"{name}.npz", {"figures": np.array(figures, dtype=np.float64), **arrays})
        self.partial(name).drop()

    def partial(self, name: str) -> PartialSolve:
        """The solve in progress of stage `name`."""
        return PartialSolve(self, f"{name}.partial.npz")

    def generated(self, k: int, tree: range_tree.RangeTree) -> tuple[LeafValues, list] | None:
        """The self-generative leaf values and continuation profiles kept for these settings,
        if they go to K >= k."""
        return self._generated_set("self_generative.npz", tree, k)

    def keep_generated(self, leaves: LeafValues, profiles: list) -> None:
        """Keeps the self-generative values and continuations (nothing without a folder), in
        place of the set kept part way."""
        self._keep_set("self_generative.npz", leaves, profiles)
        self.remove("self_generative.partial.npz")

    def _generated_set(
        self, name: str, tree: range_tree.RangeTree, k: int
    ) -> tuple[LeafValues, list] | None:
        data = self.read(name)
        if data is None or int(data["count"]) < k:
            return None
        profiles = [read_strategy(data, f"c{i}_", tree) for i in range(int(data["count"]))]
        if any(p is None for p in profiles):
            return None  # another layout of the same settings
        return LeafValues((data["values0"], data["values1"])), profiles

    def _keep_set(self, name: str, leaves: LeafValues, profiles: list) -> None:
        if self.directory is None:
            return
        arrays = {"count": np.array(len(profiles))}
        arrays.update(values0=leaves.values[0], values1=leaves.values[1])
        for i, profile in enumerate(profiles):
            arrays.update(strategy_arrays(profile, f"c{i}_"))
        self.write(name, arrays)

    def generating(self, tree: range_tree.RangeTree) -> tuple[LeafValues, list] | None:
        """The unweakened self-generative values and continuations kept part way, if any."""
        return self._generated_set("self_generative.partial.npz", tree, 1)

    def keep_generating(self, raw: LeafValues, profiles: list) -> None:
        """Keeps the set part way (unweakened values), for a stopped run to go on from."""
        self._keep_set("self_generative.partial.npz", raw, profiles)

    def values(self, name: str) -> LeafValues | None:
        """Leaf values kept as `name` (.npz) for these settings, if any."""
        data = self.read(f"{name}.npz")
        return None if data is None else LeafValues((data["values0"], data["values1"]))

    def keep_values(self, name: str, leaves: LeafValues) -> None:
        """Keeps leaf values as `name` (nothing without a folder), e.g. as a set grows."""
        if self.directory is not None:
            self.write(f"{name}.npz", {"values0": leaves.values[0], "values1": leaves.values[1]})

    def rows(self) -> list[dict]:
        """The depth-limited rows kept for these settings."""
        data = self.read("depth_limited_rows.npz")
        return [] if data is None else json.loads(str(data["rows"]))

    def keep_rows(self, rows: list[dict]) -> None:
        """Keeps the depth-limited rows finished so far (nothing without a folder)."""
        if self.directory is not None:
            self.write("depth_limited_rows.npz", {"rows": np.array(json.dumps(rows))})


class PartialSolve:
    """A solve in progress in --stages_dir: the solver's state and arrays that go with it."""

    def __init__(self, stages: Stages, name: str):
        self.stages, self.name = stages, name
        self.extra: dict[str, np.ndarray] = {}  # kept beside the state (e.g. an earlier average)
        self._kept_at = time.monotonic()

    def restore(self, solver: range_cfr.RangeCFRSolver) -> dict[str, np.ndarray]:
        """Restores the kept state into `solver` (if there is one of these settings) and returns
        the arrays kept with it (empty if none)."""
        data = self.stages.read(self.name)
        if data is None:
            return {}
        try:
            solver.restore(data)
        except ValueError as e:  # another layout of the same settings: start again
            absl_logging.warning("%s; starting the solve again", e)
            return {}
        print(f"{self.name}: resumed at iteration {solver.iteration}", flush=True)
        self.extra = {k: v for k, v in data.items() if k.startswith("extra_")}
        return self.extra

    def every_while(self, solver: range_cfr.RangeCFRSolver) -> None:
        """Keeps the state once `KEEP_SECONDS` have passed since it was last kept (a hook of
        `solver.run`: `after_iteration`)."""
        if time.monotonic() - self._kept_at >= KEEP_SECONDS:
            self.keep(solver)

    def keep(self, solver: range_cfr.RangeCFRSolver) -> None:
        """Keeps the state now (nothing without a folder, or part way through an iteration)."""
        if self.stages.directory is None or solver.paused:
            return
        self.stages.write(self.name, {**solver.state(), **self.extra})
        self._kept_at = time.monotonic()

    def drop(self) -> None:
        """Removes the kept state (its stage finished)."""
        self.stages.remove(self.name)


def strategy_arrays(strategy: list, prefix: str) -> dict[str, np.ndarray]:
    """Per-round, per-group arrays as .npz entries `<prefix><round>_<group>`."""
    return {
        f"{prefix}{r}_{k}": a
        for r, per_round in enumerate(strategy)
        for k, a in enumerate(per_round)
    }


def read_strategy(
    data: dict[str, np.ndarray], prefix: str, tree: range_tree.RangeTree
) -> list | None:
    """`strategy_arrays`' entries back as per-round lists, if they have `tree`'s shapes."""
    shapes = [
        [
            (f"{prefix}{r}_{k}", (len(g.nodes), g.num_actions, lay.shape[1]))
            for k, g in enumerate(lay.groups)
        ]
        for r, lay in enumerate(tree.rounds)
    ]
    if any(key not in data or data[key].shape != shape for per in shapes for key, shape in per):
        return None  # another layout of the same settings
    return [[data[key] for key, _ in per_round] for per_round in shapes]
