"""Parse errors and warnings shared by the URDF and SDFormat readers.

Every problem found in a model file is reported with the file name, the line number and the
element it concerns, so a user can jump straight to it.
"""
from __future__ import annotations

import os

import re
import warnings
from typing import Optional

from lxml import etree

from .resources import ReadFileBounded

__all__ = ["ParseError", "ParseWarning", "Diagnostic", "element_tag", "parse_xml", "describe_non_xml"]

DRAKE_NAMESPACE = "http://drake.mit.edu"


class ParseError(ValueError, RuntimeError):
    """A model file is malformed or says something the readers cannot honor.

    A ValueError (mallard's convention for bad input) and a RuntimeError, which pydrake raises for the same
    conditions, so code written against either catches it.

    Attributes: `filename` (path or "<string>"), `line` (1-based, or None when unknown),
    `element` (the XML tag, e.g. "joint" or "drake:rotor_inertia"), and `detail` (the message).
    """

    def __init__(self, detail: str, filename: str = "<string>", line: Optional[int] = None,
                 element: Optional[str] = None) -> None:
        self.detail = detail
        self.filename = filename
        self.line = line
        self.element = element
        where = f"{filename}:{line if line is not None else '?'}"
        what = f" <{element}>" if element else ""
        super().__init__(f"{where}:{what} {detail}")


class ParseWarning(UserWarning):
    """Something in a model file was ignored (an unknown or unsupported element or attribute)."""


def element_tag(node) -> str:
    """The tag of an lxml element as written in the file: `drake:foo` for Drake's namespace."""
    tag = node.tag
    if not isinstance(tag, str):
        return "#comment"
    if tag.startswith("{"):
        uri, local = tag[1:].split("}", 1)
        if uri == DRAKE_NAMESPACE:
            return "drake:" + local
        prefix = node.prefix
        return f"{prefix}:{local}" if prefix else local
    return tag


class Diagnostic:
    """Reports errors (raised as ParseError) and warnings (or errors in strict mode) for one file."""

    def __init__(self, filename: str, strict: bool = False) -> None:
        self.filename = filename
        self.strict = strict

    def make_error(self, node, detail: str) -> ParseError:
        """Build (not raise) a ParseError located at `node` (an lxml element, or None)."""
        if node is None:
            return ParseError(detail, self.filename, None, None)
        return ParseError(detail, self.filename, node.sourceline, element_tag(node))

    def error(self, node, detail: str) -> None:
        """Raise a ParseError located at `node`."""
        raise self.make_error(node, detail)

    def warning(self, node, detail: str) -> None:
        """Warn about `node` (strict mode: raise a ParseError instead)."""
        err = self.make_error(node, detail)
        if self.strict:
            raise err
        warnings.warn(str(err), ParseWarning, stacklevel=3)


_UNDECLARED_PREFIX = re.compile(r"Namespace prefix (\w[\w.-]*) (?:on|for) [^ ]+ (?:on [^ ]+ )?is not defined")
_FIRST_TAG = re.compile(rb"<([A-Za-z_][\w.:-]*)")


_LATE_DECLARATION = re.compile(rb"\A(\s+)(<\?xml\b[^>]*\?>)")


def _drop_late_xml_declaration(text: bytes) -> bytes:
    """An XML declaration after leading whitespace, which tinyxml2 (Drake's reader) accepts and libxml2 rejects:
    blank it out (newlines kept, so line numbers stay right). Like tinyxml2, the text is then read as UTF-8
    whatever encoding the declaration names."""
    match = _LATE_DECLARATION.match(text)
    if match is None:
        return text
    blank = re.sub(rb"[^\n]", b" ", match.group(2))
    return text[:match.start(2)] + blank + text[match.end(2):]


def parse_xml(text: bytes | str, diagnostic: Diagnostic):
    """Parse XML text into an lxml root element, keeping line numbers.

    External entities and network access are disabled. Namespace prefixes used without a
    declaration (common for `drake:` tags) are declared on the root element, as tinyxml2-based
    readers accept them; `drake:` maps to Drake's namespace. Malformed XML raises ParseError with
    the line the XML parser reports.
    """
    if isinstance(text, str):
        text = text.encode("utf-8")
    text = _drop_late_xml_declaration(text)
    parser = etree.XMLParser(resolve_entities=False, no_network=True, remove_comments=True,
                             remove_pis=True, huge_tree=False, load_dtd=False)
    declared: set[str] = set()
    while True:
        try:
            return etree.fromstring(text, parser)
        except etree.XMLSyntaxError as exc:
            msg = exc.msg or str(exc)
            match = _UNDECLARED_PREFIX.search(msg)
            if match and match.group(1) not in declared and len(declared) < 16:
                prefix = match.group(1)
                declared.add(prefix)
                uri = DRAKE_NAMESPACE if prefix == "drake" else f"urn:undeclared:{prefix}"
                text = _declare_prefix(text, prefix, uri)
                if text is not None:
                    continue
            line = exc.lineno if getattr(exc, "lineno", None) else None
            element = _element_near(text, line)
            not_xml = describe_non_xml(text) if element is None else None
            if not_xml is not None:
                raise ParseError(not_xml, diagnostic.filename, None, None) from None
            raise ParseError(f"malformed XML: {msg}", diagnostic.filename, line, element) from None
        except ValueError as exc:  # e.g. unicode strings with an encoding declaration
            raise ParseError(f"malformed XML: {exc}", diagnostic.filename, None, None) from None


def describe_non_xml(text: bytes) -> Optional[str]:
    """Why `text` holds no XML at all (the file is empty, binary, or text without an element), or None
    when it looks like (broken) XML: the message a parse error gives instead of a line number."""
    body = text[3:] if text.startswith(b"\xef\xbb\xbf") else text
    if not body.strip():
        return "the file is empty" if not body else "the file is empty (it holds only white space)"
    head = body[:4096]
    nul = head.find(b"\x00")
    if nul >= 0:
        return f"the file is binary, not XML text (it holds a NUL byte at offset {nul})"
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 4 and not re.match(rb"\s*<\?xml[^>]*encoding", head):
            return f"the file is binary, not XML text (byte 0x{head[exc.start]:02x} at offset {exc.start} is not UTF-8)"
    if not _FIRST_TAG.search(head):
        shown = head.strip()[:40].decode("utf-8", "replace")
        return f"the file holds no XML element (it starts with {shown!r})"
    return None


def _element_near(text: bytes, line: Optional[int]) -> Optional[str]:
    """The tag of the last element starting at or before `line` (best effort, for messages)."""
    if line is None:
        return None
    try:
        root = etree.fromstring(text, etree.XMLParser(recover=True, resolve_entities=False,
                                                      no_network=True, load_dtd=False))
    except etree.XMLSyntaxError:
        root = None
    best = None
    if root is not None:
        for e in root.iter():
            if isinstance(e.tag, str) and e.sourceline is not None and e.sourceline <= line:
                best = e
    if best is not None:
        return element_tag(best)
    match = _FIRST_TAG.search(text)
    return match.group(1).decode(errors="replace") if match else None


def _declare_prefix(text: bytes, prefix: str, uri: str) -> Optional[bytes]:
    """Insert `xmlns:prefix="uri"` into the root start tag (same line, so line numbers hold)."""
    match = _FIRST_TAG.search(text)
    if match is None:
        return None
    end = match.end()
    return text[:end] + f' xmlns:{prefix}="{uri}"'.encode() + text[end:]


def read_model_source(filename, file_contents, strict: bool, rejected_message: str | None = None,
                      rejected_suffix: str | None = None):
    """(XML root, Diagnostic, folder for relative paths) of a model given as a file or as a string.

    A file whose name ends with `rejected_suffix` is reported with `rejected_message` (e.g. xacro for URDF).
    """
    if filename is not None:
        filename = os.fspath(filename)
        diag = Diagnostic(filename, strict)
        if rejected_suffix is not None and filename.endswith(rejected_suffix):
            diag.error(None, rejected_message)
        try:
            text = ReadFileBounded(filename)
        except OSError as exc:
            diag.error(None, f"cannot read file: {exc}")
        root_dir = os.path.dirname(os.path.abspath(filename))
    else:
        diag = Diagnostic("<string>", strict)
        text = file_contents
        root_dir = os.getcwd()
    return parse_xml(text, diag), diag, root_dir

