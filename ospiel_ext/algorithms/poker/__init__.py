"""Poker at scale: the public tree x hand ranges sequence form.

Johanson, Bowling, Waugh & Zinkevich, "Accelerating Best Response Calculation in Large
Extensive Games", IJCAI 2011, Sections 3-4: walk the public tree (betting sequences and public
cards) with a vector over private hands at each node, and evaluate a fold or showdown against
the opponent's range by range sums and strength-sorted prefix sums, card removal by
inclusion-exclusion; Johanson et al., "Efficient Nash Equilibrium Approximation through Monte
Carlo Counterfactual Regret Minimization", AAMAS 2012, Section 3, for the vector form. The
poker structure is read from GameShrink's ordered-signals description of the game (Gilpin &
Sandholm, "Finding Equilibria in Large Sequential Games of Imperfect Information", ACM EC
2006, Definition 1), which is why this package builds on `gameshrink` (and never the reverse).
Modules:

* `structure`: the poker structure of a game (`detect`), or a refusal naming what is missing:
  one-card games (Kuhn, Leduc, Rhode Island Hold'em) and hold'em with several hole cards and
  boards dealt several cards at once (`universal_poker`);
* `hands`: hands of several cards (`HandSpace`), their card removal by inclusion-exclusion
  and showdowns by strength-sorted prefix sums, O(H) per board (Sections 4.1-4.2);
* `public_tree`: the public tree, boards and chance weights, and both players' treeplexes
  numbered exactly as the compiled game tree's (no index map);
* `products`: fold and showdown values against an opponent's range as precomputed gather /
  kernel / scatter arrays (one T x T kernel per board, card removal included);
* `range_form`: `PublicTreeSequenceForm`, a `SequenceForm` whose payoff products walk the
  public tree (`for_game`); every solver, best response and policy works on it unchanged;
* `deals`: the boards of each round, optionally one per suit orbit (suit isomorphism);
* `range_tree`: the public tree laid out as (node x board x hand) arrays per round, decisions
  in groups whose children are consecutive rows;
* `set_terminals`: the folds and showdowns of hands of several cards on that layout (`hands`),
  in place of the one-card games' T x T kernels;
* `range_rows`: one round's rows on a block of boards: reaches, values and regrets,
  regret matching (the kernels of every pass);
* `range_parts`: the blocks of boards each thread walks and the chunks of the last round,
  which a pass can leave for later (Ctrl-C);
* `range_walker`: the passes over that layout, on those threads and chunks: values and exact
  best responses (`RangeWalker.evaluate`);
* `range_cfr`: CFR / CFR+ / DCFR on those passes (Johanson et al. 2012, Section 3); with suit
  isomorphism it solves Rhode Island Hold'em and 52-card flop hold'em whole;
* `range_engine`: that solver as the CFR engine the public-tree form offers the generic
  solvers (`cfr_rules.OffersCFREngine`), from `RANGE_MIN_SEQUENCES` sequences on;
* `range_numbering`: the map between that layout and the treeplexes' sequence numbering
  (policies, lifted strategies, the equality tests);
* `range_policy`: a strategy on that layout as an OpenSpiel policy of the whole game
  (`RangeCFRSolver.average_policy`), saved and loaded as .npz;
* `agents`: batched policies (an agent asked once per public node and board, for every hand
  at once, e.g. a network on stacked information-state tensors) evaluated exactly on that
  layout (`evaluate_batched`; `ospiel-ext evaluate --agent`);
* `abstract_ranges`: a strategy of GameShrink's Γ_f on that layout, evaluated exactly in the
  original game (Theorems 2-3 tested on Rhode Island Hold'em itself).

Ask for it by name: `CFRPlusSolver(game, form="public_tree")` (`algorithms.forms`), or
`ospiel-ext solve --form=public_tree`; for games too large for a TabularPolicy (Rhode Island
Hold'em), `range_cfr.for_game(game, config)` (suit isomorphism), whose `average_policy()` is
an OpenSpiel policy, or `ospiel-ext solve --form=public_tree --suits --policy_out=P.npz`.
"""
