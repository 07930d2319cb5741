"""`python -m ospiel_ext <command> ...` = `ospiel-ext <command> ...` (`ospiel_ext.commands`)."""

from ospiel_ext.commands import run

if __name__ == "__main__":
    run()
