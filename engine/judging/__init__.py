"""Judging: grades, raters, the judgment log, judgments as chunk positions under one chunking, the one rule
for which judgments a number counts, raters' agreement, and pools of unjudged results."""
