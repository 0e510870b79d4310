"""``ntkviz gram``: placeholder until its issue lands (owned by the helper that builds it)."""


def register(sub) -> None:
    pass
