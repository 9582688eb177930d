"""DocBook: the whole PostgreSQL 18 manual (SGML fragments) and hand-written edge cases."""

from __future__ import annotations

import re
from pathlib import Path

from contextbase.parse import parse_document
from contextbase.parse.base import ParsedDocument
from contextbase.parse.docbook import parse_docbook
from tests.parse.conftest import fences, headings, prose

POSTGRES = "postgresql-18-sgml"
RESIDUE = [
    (
        r"</?(?:para|programlisting|literal|xref|link|entry|row|title|sect\d|indexterm|command)\b",
        "tag",
    ),
    (r"&[A-Za-z][\w.-]*;|&#\d+;", "entity"),
    (r"<!\[CDATA\[|\]\]>|<!--", "CDATA or comment"),
]


def sgml(corpora: Path, relative: str) -> ParsedDocument:
    path = corpora / POSTGRES / relative
    doc = parse_document(path.read_bytes(), str(path))
    assert doc is not None
    assert doc.format == "docbook"
    return doc


def test_whole_postgresql_manual_converts_cleanly(corpora: Path) -> None:
    # The full manual converts in about two seconds, so every file is checked.
    files = sorted((corpora / POSTGRES).rglob("*.sgml"))
    assert len(files) > 380
    problems: list[str] = []
    converted = 0
    for path in files:
        doc = parse_document(path.read_bytes(), str(path))
        if doc is None:
            continue
        converted += 1
        assert doc.title, path
        # Code keeps what the source shows: CDATA sections there contain literal "&lt;".
        text = prose(doc.markdown)
        for pattern, what in RESIDUE:
            match = re.search(pattern, text)
            if match:
                problems.append(f"{path.relative_to(corpora)}: {what}: {match.group(0)!r}")
    assert problems == []
    assert converted > 370


def test_reference_page(corpora: Path) -> None:
    doc = sgml(corpora, "ref/create_index.sgml")
    assert doc.title == "CREATE INDEX"
    assert doc.metadata == {"id": "sql-createindex", "element": "refentry"}
    found = headings(doc.markdown)
    assert found[:4] == ["# CREATE INDEX", "## Synopsis", "## Description", "## Parameters"]
    assert "### Building Indexes Concurrently" in found
    assert "CREATE INDEX — define a new index" in doc.markdown
    synopsis = [code for lang, code in fences(doc.markdown) if lang == "sql"]
    assert synopsis[0].startswith(
        "CREATE [ UNIQUE ] INDEX [ CONCURRENTLY ] [ [ IF NOT EXISTS ] name ]"
    )
    # Parameters (a variablelist) keep their term and description together.
    assert (
        "`CONCURRENTLY`\n\nWhen this option is used, PostgreSQL will build the index"
        in doc.markdown
    )
    # An xref to a section of the same page shows that section's title.
    assert "this option — see Building Indexes Concurrently below." in doc.markdown


def test_chapter_sections_and_program_listings(corpora: Path) -> None:
    doc = sgml(corpora, "advanced.sgml")
    assert doc.title == "Advanced Features"
    assert doc.metadata["id"] == "tutorial-advanced"
    assert headings(doc.markdown)[:3] == ["# Advanced Features", "## Introduction", "## Views"]
    assert any(
        lang == "sql" and code.startswith("CREATE VIEW myview AS\n    SELECT name")
        for lang, code in fences(doc.markdown)
    )
    assert "create a *view* over the query" in doc.markdown


def test_command_synopsis_cdata_and_tables(corpora: Path) -> None:
    dump = sgml(corpora, "ref/pg_dump.sgml")
    assert ("", "pg_dump [ connection-option... ] [ option... ] [ dbname ]") in fences(
        dump.markdown
    )
    ecpg = sgml(corpora, "ecpg.sgml")
    assert any(code.startswith("#include <stdio.h>\n") for _, code in fences(ecpg.markdown))
    func = sgml(corpora, "func.sgml")
    assert "**Trigonometric Functions**" in func.markdown
    assert (
        "`acosd` ( `double precision` ) → `double precision` Inverse cosine, result in degrees"
        in (func.markdown)
    )


def test_manual_entities_are_decoded(corpora: Path) -> None:
    doc = sgml(corpora, "problems.sgml")
    assert "If your version is older than X.Y we will" in " ".join(doc.markdown.split())
    path = corpora / POSTGRES / "problems.sgml"
    real = parse_docbook(path.read_text(encoding="utf-8"), str(path), {"version": "18.3"})
    assert "If your version is older than 18.3 we will" in " ".join(real.markdown.split())


FRAGMENT = """<!-- doc/src/sgml/widgets.sgml -->
<!DOCTYPE chapter [ <!ENTITY product "Widgeteer"> ]>
<chapter id=widgets>
 <title>Widgets &amp; &product;</title>
 <indexterm><primary>widget</primary></indexterm>
 <para>First paragraph, unclosed &mdash; next one starts.
 <para>Use <command>spin</command> with <literal>--fast <replaceable>n</replaceable></literal>,
 see <xref linkend="widgets-sizes"/> and <ulink url="https://example.com">the site</ulink>.
 Unknown &nosuchentity;entities vanish; <emphasis>stress</emphasis>, <quote>quote</quote>.
 <sect1 id="widgets-sizes">
  <title>Sizes</title>
  <table><title>Widget Sizes</title><tgroup cols=2>
   <thead><row><entry>Name<entry>Size</row></thead>
   <tbody>
    <row><entry><literal>S</literal><entry>1 cm
    <row><entry>L</entry><entry><para>9 cm</para></entry></row>
   </tbody></tgroup></table>
  <note><para>Handle with care.</para></note>
  <sect2><title>Lists</title>
   <itemizedlist><listitem><para>one<listitem><para>two</para></listitem></itemizedlist>
   <orderedlist><listitem><para>first</para></listitem><listitem><para>second</para></listitem></orderedlist>
   <variablelist><varlistentry><term><option>-v</option></term>
    <listitem><para>Verbose.</para></listitem></varlistentry></variablelist>
<screen>
$ widget --spin
spinning
</screen>
<programlisting><![CDATA[
if (a < b && c > d) return;
]]></programlisting>
<programlisting>
SELECT * FROM widgets WHERE size &lt; 5;
</programlisting>
  </sect2>
 </sect1>
</chapter>
"""


def test_hand_written_fragment_with_sgml_liberties() -> None:
    doc = parse_document(FRAGMENT, "widgets.sgml")
    assert doc is not None
    md = doc.markdown
    assert doc.title == "Widgets & Widgeteer"
    assert doc.metadata == {"id": "widgets", "element": "chapter"}
    assert headings(md) == ["# Widgets & Widgeteer", "## Sizes", "### Lists"]
    assert "First paragraph, unclosed — next one starts.\n\nUse `spin` with `--fast n`," in md
    assert "see Sizes and the site." in md
    assert "Unknown entities vanish; *stress*, “quote”." in md
    assert "**Widget Sizes**\n\nName | Size\n`S` | 1 cm\nL | 9 cm" in md
    assert "**Note:** Handle with care." in md
    assert "- one\n- two" in md
    assert "1. first\n2. second" in md
    assert "`-v`\n\nVerbose." in md
    assert ("console", "$ widget --spin\nspinning") in fences(md)
    assert ("", "if (a < b && c > d) return;") in fences(md)
    assert ("sql", "SELECT * FROM widgets WHERE size < 5;") in fences(md)
    assert "widget\n" not in md.split("## Sizes")[0]  # the index term is gone


def test_xml_with_docbook_root_and_empty_fragments() -> None:
    xml = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<section id="s"><title>Intro</title><para>Hi</para></section>'
    )
    doc = parse_document(xml.encode(), "intro.xml")
    assert doc is not None
    assert doc.markdown == "# Intro\n\nHi\n"
    # A file that only declares entities has nothing to index.
    assert parse_document('<!ENTITY intro SYSTEM "intro.sgml">\n', "filelist.sgml") is None
