"""The operations floor: one module a service or concern, holding its commands' operations
(``op(ctx, *, keyword=value) -> Result``), each named by ``operation.registry`` as
``module:function``. A command module may use every floor below and ``operation``."""
