"""`kb chat`: conversation memory, follow-up condensation, persistent threads and the REPL on top of
the same agent `kb ask` runs."""
