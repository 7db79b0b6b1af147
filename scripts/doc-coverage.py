#!/usr/bin/env python3
"""Doc coverage of a module's public API, from its symbol graph.

    scripts/doc-coverage.py SYMBOLS_JSON [ALLOWLIST]

Lists every public or open declaration without a `///` comment as
`file:line name` and exits 1 when any is found. Not counted (they cannot
carry a comment of their own, or take the one of what they implement):

- members the compiler synthesizes or declares implicitly (no source
  location, or a `::SYNTHESIZED::` identifier): `init(rawValue:)`,
  `hashValue`, `==` of an enum, inherited protocol-extension members;
- a member that implements a requirement of a protocol its type conforms to,
  when that requirement is documented: the graph's `sourceOrigin` names the
  requirement (the module's own ones must carry a comment; those of the
  standard library and Foundation are documented there); without one, the
  member's name is matched against the module's protocols and, for other
  modules' protocols, the names in KNOWN_REQUIREMENTS.

ALLOWLIST (optional) names declarations still waiting for a comment, one
`Type.member` path a line (`#` starts a comment). Those are reported but do
not fail; an entry that is documented now, or no longer exists, fails (so the
list can only shrink).
"""

import json
import sys

# Requirements of protocols documented outside the module, by protocol name.
KNOWN_REQUIREMENTS = {
    "RawRepresentable": {"rawValue", "init(rawValue:)", "RawValue"},
    "CustomStringConvertible": {"description"},
    "CustomDebugStringConvertible": {"debugDescription"},
    "LocalizedError": {"errorDescription", "failureReason", "recoverySuggestion", "helpAnchor"},
    "Equatable": {"==(_:_:)"},
    "Hashable": {"hash(into:)", "hashValue"},
    "Comparable": {"<(_:_:)", "<=(_:_:)", ">(_:_:)", ">=(_:_:)"},
    "Identifiable": {"id", "ID"},
    "Encodable": {"encode(to:)"},
    "Decodable": {"init(from:)"},
    "ExpressibleByStringLiteral": {"init(stringLiteral:)", "StringLiteralType"},
    "ExpressibleByExtendedGraphemeClusterLiteral": {
        "init(extendedGraphemeClusterLiteral:)",
        "ExtendedGraphemeClusterLiteralType",
    },
    "ExpressibleByUnicodeScalarLiteral": {"init(unicodeScalarLiteral:)", "UnicodeScalarLiteralType"},
    "ExpressibleByIntegerLiteral": {"init(integerLiteral:)", "IntegerLiteralType"},
    "ExpressibleByArrayLiteral": {"init(arrayLiteral:)", "ArrayLiteralElement"},
    "ExpressibleByDictionaryLiteral": {"init(dictionaryLiteral:)", "Key", "Value"},
    "Sequence": {"makeIterator()", "Element", "Iterator", "underestimatedCount"},
    "IteratorProtocol": {"next()", "Element"},
    "AsyncSequence": {"makeAsyncIterator()", "Element", "AsyncIterator"},
    "AsyncIteratorProtocol": {"next()", "Element"},
    "Collection": {"startIndex", "endIndex", "index(after:)", "subscript(_:)", "Index", "count"},
    "CaseIterable": {"allCases", "AllCases"},
    "Error": set(),
    "Sendable": set(),
}


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    graph = json.load(open(sys.argv[1]))
    allow = set()
    if len(sys.argv) == 3:
        for line in open(sys.argv[2]):
            entry = line.split("#", 1)[0].strip()
            if entry:
                allow.add(entry)

    symbols = {s["identifier"]["precise"]: s for s in graph["symbols"]}
    parent = {}
    origin = {}
    conforms = {}
    requirements = {}
    for rel in graph["relationships"]:
        kind, source, target = rel["kind"], rel["source"], rel["target"]
        if kind == "memberOf":
            parent[source] = target
            if "sourceOrigin" in rel:
                origin[source] = rel["sourceOrigin"]["identifier"]
        elif kind == "conformsTo":
            name = rel.get("targetFallback", "").split(".")[-1]
            if target in symbols:
                name = symbols[target]["names"]["title"]
            conforms.setdefault(source, set()).add((target, name))
        elif kind == "requirementOf":
            requirements.setdefault(target, []).append(source)

    def implements_documented_requirement(sid, title):
        # The graph names the requirement a member implements (sourceOrigin);
        # one of another module is documented there.
        if sid in origin:
            req = symbols.get(origin[sid])
            return req is None or "docComment" in req
        owner = parent.get(sid)
        for protocol, name in conforms.get(owner, ()):
            if protocol in symbols:
                for req in requirements.get(protocol, ()):
                    r = symbols.get(req)
                    if r and r["pathComponents"][-1] == title and "docComment" in r:
                        return True
            elif title in KNOWN_REQUIREMENTS.get(name, ()):
                return True
        return False

    counted, missing = 0, []
    for sid, s in symbols.items():
        if s.get("accessLevel") not in ("public", "open"):
            continue
        if "::SYNTHESIZED::" in sid or "location" not in s:
            continue
        title = s["pathComponents"][-1]
        if "docComment" not in s and implements_documented_requirement(sid, title):
            continue
        counted += 1
        if "docComment" not in s:
            loc = s["location"]
            path = loc["uri"].split("/Sources/", 1)[-1]
            missing.append((f"Sources/{path}", loc["position"]["line"] + 1, ".".join(s["pathComponents"])))

    missing.sort()
    names = {m[2] for m in missing}
    waiting = [m for m in missing if m[2] in allow]
    failing = [m for m in missing if m[2] not in allow]
    stale = sorted(allow - names)
    for path, line, name in failing:
        print(f"{path}:{line}: {name}: public declaration without a /// comment")
    for name in stale:
        print(f"doc-coverage: allowlist entry {name} is documented now or gone; remove it")
    print(
        f"doc-coverage: {counted - len(missing)} of {counted} public declarations documented"
        + (f" ({len(waiting)} allowlisted)" if waiting else "")
    )
    return 1 if failing or stale else 0


if __name__ == "__main__":
    sys.exit(main())
