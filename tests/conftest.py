"""pytest's set-up and fixtures for the whole suite; shared checks and values live in
tests/helpers.py."""

import signal

import pyspiel
import pytest
from helpers import SMALL_GAMES

import ospiel_ext.games  # noqa: F401  (registers the papers' games for every test)
from ospiel_ext import sequence_form

# `sequence_form.for_game` keeps the last 8 compiled games; the suite's test games are small
# (the largest a few 10^5 nodes, tens of MB) but there are dozens, and tests of one game are
# spread over modules, so with 8 a worker compiled Rhode Island 3x3 (4 s) twice. A worker
# keeps them all.
sequence_form._CACHE_SIZE = 64

# A shell that starts a command in the background without job control (`make test &`,
# `nohup ... &`) leaves SIGINT ignored, and Python then keeps it ignored; the Ctrl-C tests (and
# the scripts they start, which inherit the disposition) need Python's usual handler.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(params=SMALL_GAMES)
def small_game(request):
    return pyspiel.load_game(request.param)


# `make test-fast` (-m "not slow") is the edit loop, about a minute on 2 cores: it leaves out
# the end-to-end tests of the commands (each runs scripts in subprocesses) and the tests
# measured slowest (over a second each on a loaded 2-core machine, `pytest --durations=0`);
# `make test` runs every test. A test marked slow in its own file stays slow.
SLOW_MODULES = frozenset(
    {
        "tests/cli/test_bad_input.py",
        "tests/cli/test_command.py",
        "tests/cli/test_evaluate_and_play.py",
        "tests/cli/test_reliability.py",
        "tests/cli/test_renamed_flags.py",
        "tests/cli/test_scripts.py",
        "tests/cli/test_subgame_solving.py",
    }
)
SLOW_TESTS = frozenset(
    {
        "tests/algorithms/certificates/test_certificate_files.py::test_zero_certificate_of_goofspiel_4_survives_its_own_files",
        "tests/algorithms/certificates/test_certificates.py::test_players_sharing_an_information_state_string_keep_their_own_strategies",
        "tests/algorithms/certificates/test_certificates.py::test_search_refuses_imperfect_recall_as_compiling_does",
        "tests/algorithms/certificates/test_certificates.py::test_unbounded_leduc_reaches_a_zero_certificate",
        "tests/algorithms/certificates/test_certificates.py::test_warm_and_cold_searches_certify_the_same_value",
        "tests/algorithms/certificates/test_certificates.py::test_zero_certificate_tolerance_is_relative_to_the_payoff_range",
        "tests/algorithms/certificates/test_certificates.py::test_zero_certificates_export_equilibria",
        "tests/algorithms/depth_limited/compiled/test_off_tree.py::test_counterpart_maps_follow_the_labels",
        "tests/algorithms/depth_limited/compiled/test_solving.py::test_proposition1_with_cfr_plus_on_leduc",
        "tests/algorithms/depth_limited/ranges/test_off_tree.py::test_resolving_beyond_the_limit_has_the_compiled_gadget_games_value",
        "tests/algorithms/depth_limited/ranges/test_off_tree.py::test_the_depth_limited_response_has_the_compiled_gadget_games_value",
        "tests/algorithms/depth_limited/ranges/test_off_tree.py::test_threads_resolve_the_subgames_bit_for_bit",
        "tests/algorithms/depth_limited/ranges/test_solving.py::test_the_depth_limited_game_has_the_compiled_games_value",
        "tests/algorithms/depth_limited/test_matches.py::test_swapping_the_bots_replays_the_games",
        "tests/algorithms/gameshrink/test_dominance.py::test_reduced_game_keeps_the_value_and_an_equilibrium",
        "tests/algorithms/gameshrink/test_gameshrink.py::test_algorithm_1_agrees_with_the_fixed_point_on_every_sibling_pair",
        "tests/algorithms/gameshrink/test_gameshrink.py::test_approximate_classes_are_components_of_cheap_sibling_pairs",
        "tests/algorithms/gameshrink/test_gameshrink.py::test_lifted_equilibrium_is_an_equilibrium_of_the_original_game",
        "tests/algorithms/gameshrink/test_gameshrink.py::test_paper_transformation_is_algorithm_1_with_payoff_only_leaves",
        "tests/algorithms/gameshrink/test_lossless_evidence.py::test_lifting_into_the_identity_filter_is_lifting_into_the_game",
        "tests/algorithms/gameshrink/test_lossless_evidence.py::test_lossless_equilibrium_lifted_into_the_identity_filter_is_exact",
        "tests/algorithms/gameshrink/test_stopping.py::test_the_approximate_filter_so_far_lies_between_lossless_and_complete",
        "tests/algorithms/poker/test_abstract_ranges.py::test_the_lifted_strategy_is_evaluated_as_in_the_compiled_game",
        "tests/algorithms/poker/test_action_abstractions.py::test_the_restricted_layout_is_the_restricted_compiled_game",
        "tests/algorithms/poker/test_agents.py::test_a_network_on_batched_tensors_has_the_exploitability_of_its_per_state_twin",
        "tests/algorithms/poker/test_agents.py::test_an_openspiel_policy_asked_per_hand_has_openspiels_exploitability",
        "tests/algorithms/poker/test_holdem_ranges.py::test_one_pass_of_a_random_policy_equals_the_explicit_form",
        "tests/algorithms/poker/test_holdem_ranges.py::test_openspiel_measures_the_exploitability_the_walker_reports",
        "tests/algorithms/poker/test_holdem_ranges.py::test_strengths_evaluated_in_small_blocks_give_the_explicit_forms_values",
        "tests/algorithms/poker/test_public_tree.py::test_sequence_values_and_expected_value",
        "tests/algorithms/poker/test_public_tree.py::test_treeplexes_are_numbered_as_the_explicit_form",
        "tests/algorithms/poker/test_range_cfr.py::test_entries_are_the_suit_orbits_of_board_and_hand",
        "tests/algorithms/poker/test_range_cfr.py::test_float32_with_suits_reports_its_own_strategy_exactly",
        "tests/algorithms/poker/test_range_cfr.py::test_one_pass_equals_the_explicit_form",
        "tests/algorithms/poker/test_range_cfr.py::test_suit_isomorphism_gives_the_lifted_strategy_exactly",
        "tests/algorithms/poker/test_range_cfr.py::test_threads_and_chunks_give_the_same_iterates_bit_for_bit",
        "tests/algorithms/poker/test_range_policy.py::test_openspiel_measures_the_exploitability_the_walker_reports",
        "tests/algorithms/poker/test_range_policy.py::test_the_best_response_is_a_pure_policy_openspiel_scores_at_its_value",
        "tests/algorithms/poker/test_range_policy.py::test_three_suits_through_the_compiled_form",
        "tests/algorithms/subgames/test_batched_gadgets.py::test_the_batched_gadget_is_the_per_history_gadget",
        "tests/algorithms/subgames/test_combine.py::test_safe_resolving_never_hurts",
        "tests/algorithms/subgames/test_experiment.py::test_local_dask_gives_the_serial_records",
        "tests/algorithms/subgames/test_ggse.py::test_cfr_plus_and_lp_ggse_agree_on_kuhn",
        "tests/algorithms/subgames/test_ggse.py::test_the_three_solvers_agree_on_observation1",
        "tests/algorithms/subgames/test_reach_margin.py::test_reach_max_margin_is_safe",
        "tests/algorithms/test_cfr.py::test_cfr_flags_as_openspiel",
        "tests/algorithms/test_cfr.py::test_same_iterates_as_openspiel_python",
        "tests/algorithms/test_cfr.py::test_solver_api",
        "tests/algorithms/test_egt.py::test_solver_api",
        "tests/games/test_poker_actions.py::test_abstraction_compiles_a_smaller_game_with_the_games_keys",
        "tests/openspiel_compat/test_cfr_openspiel.py::CFRTest::test_cfr_cce_ce_dist_goofspiel",
        "tests/openspiel_compat/test_cfr_openspiel.py::CFRTest::test_cpp_algorithms_identical_to_python_algorithm1",
        "tests/openspiel_compat/test_cfr_openspiel.py::CFRTest::test_cpp_algorithms_identical_to_python_algorithm3",
        "tests/openspiel_compat/test_discounted_cfr_openspiel.py::DiscountedCfrTest::test_discounted_cfr_runs_against_leduc",
        "tests/runtime/test_progress.py::test_egt_with_a_time_limit_alone_runs_until_the_time_limit",
        "tests/runtime/test_progress.py::test_log_lines_have_no_timestamps_and_quiet_silences_them",
        "tests/runtime/test_progress.py::test_solve_with_a_time_limit_alone_runs_until_the_time_limit",
        "tests/runtime/test_progress.py::test_the_bar_of_a_time_limited_run_counts_to_the_time_limit_and_shows_the_nash_conv",
        "tests/runtime/test_progress.py::test_without_a_terminal_a_run_logs_a_line_every_run_log_seconds",
        "tests/runtime/test_sweeps.py::test_a_reused_pool_forgets_the_stop_of_an_earlier_sweep",
        "tests/runtime/test_sweeps.py::test_process_pool_gathers_in_task_order",
        "tests/runtime/test_sweeps.py::test_process_pool_matches_openspiel",
        "tests/test_layers.py::test_importing_the_cfr_solvers_loads_no_poker_or_gameshrink_module",
        "tests/test_layers.py::test_importing_the_library_defines_no_absl_flag_and_registers_no_game",
        "tests/test_policies.py::test_the_layouts_template_has_openspiels_rows_without_its_walk",
        "tests/test_tutorial.py::test_every_block_runs_in_order",
        "tests/test_walk.py::test_bad_games_are_refused_with_a_reason",
    }
)


def pytest_collection_modifyitems(items):
    # the results slices first: the longest tests (up to ~35 s), started while the other
    # worker takes the rest, not left to the end of a worker's share (`--dist=worksteal`)
    items.sort(key=lambda item: not item.nodeid.startswith("tests/results/"))
    for item in items:
        test = item.nodeid.split("[", 1)[0]
        if test.split("::", 1)[0] in SLOW_MODULES or test in SLOW_TESTS:
            item.add_marker(pytest.mark.slow)
