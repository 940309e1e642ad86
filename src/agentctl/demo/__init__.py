"""`agentctl demo`, a front end: ``scenario`` (the seed's refactor) and ``agent`` (the scripted
agent that keeps forgetting).
"""
