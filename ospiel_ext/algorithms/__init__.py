"""The papers' algorithms, one module or package each.

* `solver`: the `Solver` protocol and the one run loop (budget, time limit, Ctrl-C);
* `cfr_variants`: vectorised CFR, CFR+, DCFR and LCFR on the sequence form, one update rule
  configured by `CFRConfig`, with basis matrices;
* `cfr`: the same as drop-ins for OpenSpiel's CFR solvers (its signatures);
* `lp_solver`: a drop-in for OpenSpiel's `lp_solver` (matrix games, dominance) on HiGHS;
* `sequence_form_lp`: a drop-in for OpenSpiel's `sequence_form_lp` on the pack's HiGHS LP;
* `best_response`: a drop-in for OpenSpiel's `best_response`, computed once on the arrays;
* `expected_game_score`: OpenSpiel's `policy_value` on the arrays;
* `policy_aggregator`: OpenSpiel's `PolicyAggregator` (mixtures of policies) on the arrays;
* `dilated_entropy`: the (perturbed) dilated entropy DGF of a treeplex and its closed-form argmax;
* `egt`: the excessive gap technique with that DGF (approximate EFPE);
* `forms`: the sequence form a solver runs on, by name (`form="explicit"` or `"public_tree"`);
* `gameshrink`: lossless and approximate abstraction of games with ordered signals;
* `poker`: the public tree x hand ranges sequence form of poker games (on gameshrink's
  descriptions);
* `subgames`: safe subgame solving with gadget games and gadget game sequential equilibria;
* `depth_limited`: depth-limited solving with multi-valued states;
* `certificates`: certificates of equilibria in black-box games.
"""
