"""Allow `python -m kb_agent`."""

from kb_agent.cli import main

main()
