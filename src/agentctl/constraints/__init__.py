"""The constraints service: the project's hard rules, which outlive every task.

``rules`` (the rules file and its parser), ``edit`` (adding and removing rules), ``protect``
(the denied paths, one identity per file), ``violations`` (writes to a denied path that
happened anyway); its commands are ``commands.constraints``. Uses the ground floor only.
"""
