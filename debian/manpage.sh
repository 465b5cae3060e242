#!/bin/sh
# manpage.sh NAME PROGRAM: a manual page for NAME, its PROGRAM --help as
# it is (debian/rules: lintian wants one per program; the --help texts
# are the reference)
set -eu
name=$1
prog=$2
upper=$(echo "$name" | tr '[:lower:]' '[:upper:]')
printf '.TH %s 1 "" "wsr" "wsr"\n.SH NAME\n%s \\- working-set reporting\n.SH DESCRIPTION\n.nf\n' \
	"$upper" "$name"
# roff: a backslash is \e; a line may not start with . or '
"$prog" --help | sed -e 's/\\/\\e/g' -e "s/^\([.']\)/\\\\\&\1/"
printf '.fi\n.SH SEE ALSO\nEach command'"'"'s own --help, and docs/ in wsr'"'"'s source.\n'
