"""Test support shared by every test package, imported as `tests.support.<module>` (pytest runs with
`pythonpath=["."]`, so `tests` resolves from the repository root; no test folder edits sys.path)."""
