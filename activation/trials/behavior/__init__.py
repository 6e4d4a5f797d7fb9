"""Stage C, behavior: the workspace an agent leaves behind and the graders of it."""
