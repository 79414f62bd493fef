"""A corpus' workspace: the user's questions, judgments and saved runs as plain files, and the
files they are imported from and exported to."""
