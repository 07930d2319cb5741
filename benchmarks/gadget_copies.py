r"""Gadget construction with one batched subtree copy against one copy per history (issue 37).

  python benchmarks/gadget_copies.py --game="turn_based_simultaneous_game(game=goofspiel(\
imp_info=True,num_cards=5,points_order=descending))" --moves=2,4,6

Builds the resolving, max-margin and unsafe gadgets (`subgames.gadgets`) of every subgame of
--game after each of --moves moves, under a Dirichlet blueprint, once with
`gadgets.BATCHED_COPIES = False` (a `TreeBuilder.copy_subtree` call per history, the old way)
and once with True (`TreeBuilder.copy_subtrees`), side by side in one process, best of
--repeats; prints the seconds of each and their ratio per cut.
and the seconds in the copies alone (the rest: the sequence form, checks, root values).
JSON keys: game, rows (moves, subgames, roots, gadget_nodes, per_history_s, batched_s, ratio,
per_history_copy_s, batched_copy_s, copy_ratio).
"""

import time

from absl import app, flags

from ospiel_ext import policies, sequence_form
from ospiel_ext.algorithms.subgames import blueprints, gadgets
from ospiel_ext.algorithms.subgames.cuts import Cut, subgames
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output

_GAME = flags.DEFINE_string(
    "game",
    "turn_based_simultaneous_game(game=goofspiel(imp_info=True,num_cards=5,"
    "points_order=descending))",
    "A load_game string.",
)
_MOVES = flags.DEFINE_list("moves", ["2", "4", "6"], "Subgames after this many moves.")
_REPEATS = flags.DEFINE_integer("repeats", 3, "Best of this many builds.")
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the results here as JSON.")
KINDS = ("resolving", "max_margin", "unsafe")


class _CopyClock:
    """Seconds spent in the gadgets' subtree copies (`_copy`, `_copy_all`, outermost calls)."""

    def __init__(self):
        self.seconds, self._depth = 0.0, 0
        self._originals = {name: getattr(gadgets, name) for name in ("_copy", "_copy_all")}
        for name, original in self._originals.items():
            setattr(gadgets, name, self._timed(original))

    def _timed(self, original):
        def timed(*args, **kwargs):
            self._depth += 1
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                self._depth -= 1
                if not self._depth:
                    self.seconds += time.perf_counter() - start

        return timed


def _build_all(q, subs, batched):
    """(Seconds to build every gadget of `subs`, of which in copies, their total nodes)."""
    gadgets.BATCHED_COPIES = batched
    clock = _CopyClock()
    start, nodes = time.perf_counter(), 0
    try:
        for sub in subs:
            for kind in KINDS:
                player = None if kind == "unsafe" else 1
                nodes += gadgets.gadget_game(kind, q, sub, player=player).tree.num_nodes
    finally:
        for name, original in clock._originals.items():
            setattr(gadgets, name, original)
    return time.perf_counter() - start, clock.seconds, nodes


def main(argv):
    cli_flags.no_arguments(argv)
    sf = sequence_form.for_game(_GAME.value)
    blueprint = blueprints.load_blueprint(sf, policies.random_policy(sf.tree.game, 0))
    q = blueprints.BlueprintQuantities.compute(sf, blueprint)
    rows = []
    for moves in map(int, _MOVES.value):
        subs = subgames(sf.tree, Cut.after_moves(moves))
        old, new = [], []
        for _ in range(_REPEATS.value):
            *seconds, nodes = _build_all(q, subs, False)
            old.append(seconds)
            *seconds, batched_nodes = _build_all(q, subs, True)
            new.append(seconds)
            assert nodes == batched_nodes
        (old_s, old_copy_s), (new_s, new_copy_s) = min(old), min(new)
        row = {
            "moves": moves,
            "subgames": len(subs),
            "roots": sum(s.num_roots for s in subs),
            "gadget_nodes": nodes,
            "per_history_s": old_s,
            "batched_s": new_s,
            "ratio": old_s / new_s,
            "per_history_copy_s": old_copy_s,
            "batched_copy_s": new_copy_s,
            "copy_ratio": old_copy_s / new_copy_s,
        }
        print(
            f"after {moves} moves: {row['subgames']} subgames, {row['roots']} roots, "
            f"{nodes} gadget nodes: per history {old_s:.3f} s (copies {old_copy_s:.3f} s), "
            f"batched {new_s:.3f} s (copies {new_copy_s:.3f} s), ratio {old_s / new_s:.1f}x "
            f"(copies {old_copy_s / new_copy_s:.1f}x)"
        )
        rows.append(row)
    gadgets.BATCHED_COPIES = True
    if _OUTPUT_JSON.value:
        cli_output.write_json(_OUTPUT_JSON.value, {"game": _GAME.value, "rows": rows})


if __name__ == "__main__":
    app.run(main)
