"""Triage: the user's own work on a folder (marks, notes, clips, last session), opening a
page in the user's PDF viewer, and exporting a reading list.

Core modules only: nothing here imports Textual.
"""
