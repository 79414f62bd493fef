import sys

from ranklens.cli.main import main

sys.exit(main())
