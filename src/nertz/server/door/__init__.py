"""What one client may take from the server, checked at the door.

Every limit and quota (``limits.py``), the door that refuses before the app spends
anything (``edge.py``), the site's own ``Host`` and ``Origin`` (``site.py``) and a
refusal as an HTTP answer (``requests.py``).
"""
