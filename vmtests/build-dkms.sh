#!/usr/bin/env bash
# Build the series' virtio_balloon for Debian's stock cloud kernel with
# DKMS, as a user would (dkms add, build, install), but in a private
# tree: dkms's --dkmstree, --sourcetree and --installtree point into the
# cache, and the stock kernel's headers are vmtests/fetch-stock-headers.sh's
# (--kernelsourcedir).  Fails if anything under the host's /lib/modules,
# /usr/src, /var/lib/dkms or /etc/dkms changed meanwhile.  Cached by its
# inputs: the stock version, the series, dkms/ and these scripts.
#
# Prints the folder holding:
#   src/wsr-virtio-balloon-<version>/  the package's source as dkms built it
#   install/<release>/updates/dkms/virtio_balloon.ko  as dkms installed it
#   built-for                          "<release> <Debian version>"
#   lib/modules/..., modules.list      the stock guest's modules, ours in
#                                      place of Debian's virtio_balloon
#                                      (vmtests/run --kernel stock-dkms)
set -eu
. "$(dirname "$0")/lib.sh"

NAME=wsr-virtio-balloon
read -r pkg version <<<"$(stock_kernel_pkg)"
release=${pkg#linux-image-}
key=$( (echo "$version"; hash_inputs "$WSR_ROOT"/kernel-patches/0*.patch "$WSR_ROOT"/dkms/* \
	"$WSR_ROOT"/vmtests/dkms-source.sh "$WSR_ROOT"/vmtests/fetch-stock-headers.sh "$0") | sha256sum | cut -c1-16)
out=$WSR_CACHE/dkms-$key
if [ -e "$out/done" ]; then
	echo "$out"
	exit 0
fi
stock=$("$WSR_ROOT"/vmtests/fetch-stock-kernel.sh)
hdr=$("$WSR_ROOT"/vmtests/fetch-stock-headers.sh)

# built in place (dkms's tree links to its source by path): "done" says
# it is whole
w=$out
rm -rf "$w"
mkdir -p "$w/src" "$w/dkms" "$w/install/$release"
pkgver=$("$WSR_ROOT"/vmtests/dkms-source.sh "$w/gen" "$version")
mv "$w/gen" "$w/src/$NAME-$pkgver"

log "dkms add, build, install $NAME $pkgver for $release (private tree $w)"
stamp=$w/stamp
touch "$stamp"
# No signing: dkms would sign with a key it makes in /var/lib/dkms, which
# the stock kernel does not trust anyway; it loads unsigned modules (no
# CONFIG_MODULE_SIG_FORCE, no lockdown without Secure Boot), tainted.
# No depmod: it would write into the host's /lib/modules/<release>.
dkms_run() {
	sign_file=/dev/null dkms "$1" -m "$NAME" -v "$pkgver" -k "$release" \
		--dkmstree "$w/dkms" --sourcetree "$w/src" --installtree "$w/install" \
		--kernelsourcedir "$hdr" "${@:2}" >>"$w/dkms.log" 2>&1 ||
		{ tail -n 30 "$w/dkms.log" >&2; die "dkms $1 failed (log: $w/dkms.log)"; }
}
dkms_run add
dkms_run build
dkms_run install --no-depmod
ko=$w/install/$release/updates/dkms/virtio_balloon.ko
[ -e "$ko" ] || die "dkms install put no $ko"
# what the run changed outside its tree ($w is under $WSR_CACHE)
leaked=$(find /lib/modules /usr/src /var/lib/dkms /etc/dkms -newer "$stamp" 2>/dev/null | head -n 5)
[ -z "$leaked" ] || die "dkms changed the host outside its private tree: $leaked"

# the stock guest's modules, ours for Debian's virtio_balloon
while read -r m; do
	case "$m" in
	*/virtio_balloon.ko) m=$release/updates/dkms/virtio_balloon.ko
		install -D -m 644 "$ko" "$w/lib/modules/$m" ;;
	*) install -D -m 644 "$stock/lib/modules/$m" "$w/lib/modules/$m" ;;
	esac
	echo "$m"
done <"$stock/modules.list" >"$w/modules.list"
grep -q updates/dkms/virtio_balloon.ko "$w/modules.list" ||
	die "$stock/modules.list loads no virtio_balloon to replace"
cp -r "$stock/boot" "$w/"
echo "$release $version" >"$w/built-for"
touch "$w/done"
echo "$out"
