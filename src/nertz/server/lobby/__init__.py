"""Live tables: the lobby that creates, lists and joins them, the actor that runs
each one (``actor.py``), invites, devices, and finished tables read back
(``archive.py``, ``history.py``).
"""
