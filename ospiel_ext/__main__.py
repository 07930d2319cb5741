"""`python -m ospiel_ext <command> ...` = `ospiel-ext <command> ...` (`ospiel_ext.cli.commands`)."""

from ospiel_ext.cli.commands import run

if __name__ == "__main__":
    run()
