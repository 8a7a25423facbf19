# `make help`: reads the Makefile and prints, for each `## target: text`
# comment block, the target and the block's first line; then fails, naming
# them, if a .PHONY target has no such line (so the list cannot go stale:
# a new target without its line breaks `make help`).
#   awk -f scripts/make-help.awk Makefile
/^\.PHONY:/ {
    for (i = 2; i <= NF; i++) phony[$i] = 1
    block = 0
    next
}
/^## / {
    if (!block && match($0, /^## [A-Za-z0-9_.-]+:/)) {
        name = substr($0, 4, RLENGTH - 4)
        order[++n] = name
        text[name] = substr($0, RLENGTH + 2)
    }
    block = 1
    next
}
{ block = 0 }
END {
    for (i = 1; i <= n; i++) printf "  %-18s %s\n", order[i], text[order[i]]
    missing = ""
    for (t in phony) if (!(t in text)) missing = missing " " t
    if (missing != "") {
        print "make help: no `## target:` line in the Makefile for" missing > "/dev/stderr"
        exit 1
    }
}
