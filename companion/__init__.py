"""The companion: the service beside the table, and the ``companion`` command."""
