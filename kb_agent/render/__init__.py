"""Rendering: answers, traces, search hits, reports and status as rich renderables, text or JSON.

Pure functions over typed values; the console and the KB root are arguments. Above agent, below cli/chat.
"""
