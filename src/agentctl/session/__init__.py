"""The session service: compaction awareness (how many compactions, the last one).

Uses the ground floor only.
"""
