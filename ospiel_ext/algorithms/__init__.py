"""The papers' algorithms, one module or package each.

* `solver`: the `Solver` protocol and the one run loop (budget, time limit, Ctrl-C);
* `cfr`: vectorised CFR, CFR+, DCFR and LCFR on the sequence form (OpenSpiel drop-ins);
* `egt`: the excessive gap technique with (perturbed) dilated entropy (approximate EFPE);
* `gameshrink`: lossless and approximate abstraction of games with ordered signals;
* `subgames`: safe subgame solving with gadget games and gadget game sequential equilibria;
* `depth_limited`: depth-limited solving with multi-valued states;
* `certificates`: certificates of equilibria in black-box games.
"""
