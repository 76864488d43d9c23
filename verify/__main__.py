import sys

try:  # Ctrl-C while the (heavy) imports load: exit 130 quietly, like Ctrl-C at any later moment
    from ._shadow import message, shadowing_modules
    _shadowed = shadowing_modules()
    if _shadowed:
        sys.stderr.write(message(_shadowed) + "\n")
        sys.exit(2)
    from .cli import main
except KeyboardInterrupt:
    sys.stderr.write("\ninterrupted\n")
    sys.exit(130)

sys.exit(main())
