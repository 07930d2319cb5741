"""A package, so that compiled/test_bot.py and sampled/test_bot.py import as compiled.test_bot
and sampled.test_bot (pytest's rootdir-relative names) instead of clashing as test_bot."""
