"""``python -m dpcalc``: the command line (`dpcalc.cli.main.main`)."""

from dpcalc.cli.main import main

if __name__ == "__main__":
    main()
