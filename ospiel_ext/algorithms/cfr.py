"""OpenSpiel's CFR solvers on arrays: drop-ins for its `cfr` and `discounted_cfr` classes.

`_CFRSolver`, `CFRSolver` (Zinkevich et al. 2007), `CFRPlusSolver` (Tammelin 2014) and
`_DCFRSolver`, `DCFRSolver`, `LCFRSolver` (Brown & Sandholm 2019, "Solving Imperfect-Information
Games via Discounted Regret Minimization") take OpenSpiel's constructor arguments, build the
`cfr_variants.CFRConfig` of the variant and run `cfr_variants.CFRVariantSolver` (the update
rule, basis matrices and lower bounds). They have OpenSpiel's `evaluate_and_update_policy()`,
`current_policy()`, `average_policy()` and the same iterates (tested against OpenSpiel to
1e-9). One difference on purpose: the policies are fresh `TabularPolicy` objects on every
call, never a shared object that later iterations mutate (OpenSpiel returns one object updated
in place). `SOLVERS` names them for the command line.
"""

from __future__ import annotations

from collections.abc import Mapping

import pyspiel

from ospiel_ext.algorithms.cfr_variants import CFRConfig, CFRVariantSolver
from ospiel_ext.arrays import FloatArray
from ospiel_ext.constraints import BehaviouralLowerBounds
from ospiel_ext.sequence_form import SequenceForm


class _CFRSolver(CFRVariantSolver):
    """OpenSpiel's `cfr._CFRSolver`, its arguments positional or keyword, on arrays.

    The signature is OpenSpiel's: `_CFRSolver(game, alternating_updates, linear_averaging,
    regret_matching_plus)`.

    Args:
      game: a pyspiel game, load_game string or SequenceForm.
      alternating_updates, linear_averaging, regret_matching_plus: see `CFRConfig`.
      basis, xi, lower_bounds, max_nodes, form: see `CFRVariantSolver`.
    """

    def __init__(
        self,
        game: pyspiel.Game | str | SequenceForm,
        alternating_updates: bool,
        linear_averaging: bool,
        regret_matching_plus: bool,
        *,
        basis: Mapping[str, FloatArray] | None = None,
        xi: float = 0.0,
        lower_bounds: BehaviouralLowerBounds | None = None,
        max_nodes: int | None = None,
        form: str = "explicit",
    ):
        config = CFRConfig(
            regret_matching_plus=bool(regret_matching_plus),
            alternating_updates=bool(alternating_updates),
            linear_averaging=bool(linear_averaging),
        )
        super().__init__(
            game,
            config,
            basis=basis,
            xi=xi,
            lower_bounds=lower_bounds,
            max_nodes=max_nodes,
            form=form,
        )


class CFRSolver(_CFRSolver):
    """Vanilla CFR (Zinkevich et al. 2007) as OpenSpiel's `cfr.CFRSolver(game)`.

    Alternating updates by default; `alternating_updates=False` gives the paper's simultaneous
    updates.
    """

    def __init__(
        self,
        game: pyspiel.Game | str | SequenceForm,
        *,
        alternating_updates: bool = True,
        basis: Mapping[str, FloatArray] | None = None,
        xi: float = 0.0,
        lower_bounds: BehaviouralLowerBounds | None = None,
        max_nodes: int | None = None,
        form: str = "explicit",
    ):
        super().__init__(
            game,
            alternating_updates=alternating_updates,
            linear_averaging=False,
            regret_matching_plus=False,
            basis=basis,
            xi=xi,
            lower_bounds=lower_bounds,
            max_nodes=max_nodes,
            form=form,
        )


class CFRPlusSolver(_CFRSolver):
    """CFR+ (Tammelin 2014) as OpenSpiel's `cfr.CFRPlusSolver(game)`.

    Regret matching+, alternating updates, linear averaging.
    """

    def __init__(
        self,
        game: pyspiel.Game | str | SequenceForm,
        *,
        basis: Mapping[str, FloatArray] | None = None,
        xi: float = 0.0,
        lower_bounds: BehaviouralLowerBounds | None = None,
        max_nodes: int | None = None,
        form: str = "explicit",
    ):
        super().__init__(
            game,
            alternating_updates=True,
            linear_averaging=True,
            regret_matching_plus=True,
            basis=basis,
            xi=xi,
            lower_bounds=lower_bounds,
            max_nodes=max_nodes,
            form=form,
        )


class _DCFRSolver(CFRVariantSolver):
    """OpenSpiel's `discounted_cfr._DCFRSolver` (Brown & Sandholm 2019), on arrays.

    The signature is OpenSpiel's: `_DCFRSolver(game, alternating_updates, linear_averaging,
    regret_matching_plus, alpha, beta, gamma)`, positional or keyword, which is why it keeps
    seven positional parameters (a drop-in, tested positionally against OpenSpiel's).

    The same iterates as OpenSpiel's with alternating updates, with or without linear
    averaging (average weights t^gamma, or uniform). Two differences, both places where
    OpenSpiel ignores a flag: with `alternating_updates=False` OpenSpiel's
    `evaluate_and_update_policy` only counts the iteration (its update loop sits under
    `if self._alternating_updates`), while here both players update simultaneously and are
    discounted; and OpenSpiel never applies `regret_matching_plus` in DCFR, while here it
    clips the cumulative regrets at zero before discounting.
    """

    def __init__(  # noqa: PLR0913, PLR0917 (OpenSpiel's positional signature)
        self,
        game: pyspiel.Game | str | SequenceForm,
        alternating_updates: bool,
        linear_averaging: bool,
        regret_matching_plus: bool,
        alpha: float,
        beta: float,
        gamma: float,
        *,
        basis: Mapping[str, FloatArray] | None = None,
        xi: float = 0.0,
        lower_bounds: BehaviouralLowerBounds | None = None,
        max_nodes: int | None = None,
        form: str = "explicit",
    ):
        discount = (float(alpha), float(beta), float(gamma))
        config = CFRConfig(
            regret_matching_plus=bool(regret_matching_plus),
            alternating_updates=bool(alternating_updates),
            linear_averaging=bool(linear_averaging),
            discount=discount,
        )
        super().__init__(
            game,
            config,
            basis=basis,
            xi=xi,
            lower_bounds=lower_bounds,
            max_nodes=max_nodes,
            form=form,
        )
        self.alpha, self.beta, self.gamma = discount


class DCFRSolver(_DCFRSolver):
    """Discounted CFR as OpenSpiel's `discounted_cfr.DCFRSolver`.

    OpenSpiel's signature and defaults, `DCFRSolver(game, alpha=3/2, beta=0, gamma=2)`:
    alternating updates, average weighted by t^gamma, no RM+.
    """

    def __init__(
        self,
        game: pyspiel.Game | str | SequenceForm,
        alpha: float = 1.5,
        beta: float = 0.0,
        gamma: float = 2.0,
        *,
        basis: Mapping[str, FloatArray] | None = None,
        xi: float = 0.0,
        lower_bounds: BehaviouralLowerBounds | None = None,
        max_nodes: int | None = None,
        form: str = "explicit",
    ):
        super().__init__(
            game,
            alternating_updates=True,
            linear_averaging=True,
            regret_matching_plus=False,
            alpha=alpha,
            beta=beta,
            gamma=gamma,
            basis=basis,
            xi=xi,
            lower_bounds=lower_bounds,
            max_nodes=max_nodes,
            form=form,
        )


class LCFRSolver(_DCFRSolver):
    """Linear CFR as OpenSpiel's `discounted_cfr.LCFRSolver(game)`.

    DCFR with (alpha, beta, gamma) = (1, 1, 1), i.e. iteration t's regrets and strategy
    weighted by t.
    """

    def __init__(
        self,
        game: pyspiel.Game | str | SequenceForm,
        *,
        basis: Mapping[str, FloatArray] | None = None,
        xi: float = 0.0,
        lower_bounds: BehaviouralLowerBounds | None = None,
        max_nodes: int | None = None,
        form: str = "explicit",
    ):
        super().__init__(
            game,
            alternating_updates=True,
            linear_averaging=True,
            regret_matching_plus=False,
            alpha=1.0,
            beta=1.0,
            gamma=1.0,
            basis=basis,
            xi=xi,
            lower_bounds=lower_bounds,
            max_nodes=max_nodes,
            form=form,
        )


SOLVERS = {"cfr": CFRSolver, "cfr_plus": CFRPlusSolver, "dcfr": DCFRSolver, "lcfr": LCFRSolver}
