"""`python -m bankism` runs the same CLI as the `bankism` script."""

from bankism.cli import main

main()
