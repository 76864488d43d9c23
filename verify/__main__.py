import sys

try:  # Ctrl-C while the (heavy) imports load: exit 130 quietly, like Ctrl-C at any later moment
    from .cli import main
except KeyboardInterrupt:
    sys.stderr.write("\ninterrupted\n")
    sys.exit(130)

sys.exit(main())
