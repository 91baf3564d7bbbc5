"""Stage 1: read ``graphs.toml`` and signatures into frozen, validated settings."""

from .load import display_path, load_config
from .model import GraphConfig, PackageConfig, ProjectConfig
from .signature import parse_signature

__all__ = [
    "GraphConfig",
    "PackageConfig",
    "ProjectConfig",
    "display_path",
    "load_config",
    "parse_signature",
]
