"""Stackable compilers: anything with ``compile(graph)``; tuples of compilers run in order."""

from .base import Compiler, Looped, Sequence
from .fuse import FuseOpCompiler
from .generic import CSE, ArithmeticSimplify, ConstantFold, GenericCompiler, RemoveUnused
from .search import SearchCompiler, SearchReport
from .stwo import StwoCompiler

__all__ = [
    "ArithmeticSimplify", "CSE", "Compiler", "ConstantFold", "FuseOpCompiler", "GenericCompiler", "Looped", "RemoveUnused",
    "SearchCompiler", "SearchReport", "Sequence", "StwoCompiler",
]
