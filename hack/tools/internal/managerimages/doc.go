// Package managerimages proves hack/images/manager-images.sh (make images) on the real Docker
// Engine: the image it builds is FROM scratch with the static manager binary, the CA bundle
// and a non-root user, and the binary runs there. It builds under a unique tag and removes
// that tag afterwards; it never touches the :dev images. It holds tests only.
package managerimages
