"""ranklens' headless command line: argparse over the engine, no Textual import."""
