"""Run infrastructure, no game maths: what every long computation and command shares.

* `interrupts`: the one Ctrl-C / SIGTERM mechanism (graceful regions, deadlines);
* `budget`: time, memory and Ctrl-C budgets checked inside long phases;
* `stops`: why a computation ended (`stop_reason`);
* `progress`: progress bars and periodic log lines;
* `executors`, `sweeps`: independent runs on local processes or a Dask cluster;
* `provenance`: the command, code and machine behind a results file;
* `tables`: plain text tables;
* `callables`: functions a user names as MODULE:NAME or FILE.py:NAME;
* `blas`: OpenBLAS on one thread while the pack's own threads run numpy;
* `files`: outputs that never destroy anything (atomic replacement, links followed, pipes and
  devices written through) and readers of JSON / .npz inputs.

Nothing here imports the game maths (`tests/test_layers.py` checks it), so the algorithms and
the command line both build on it.
"""
