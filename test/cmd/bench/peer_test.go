package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPeerFlags_ExplicitPeerGetsTheWebhookServerAndItsArgs(t *testing.T) {
	p := peerFlags{manager: "/bin/core", crds: "/crds", name: "upstream v1.13.6", args: "--a=1  --b", webhook: true}
	require.True(t, p.wanted())
	peer, err := p.resolve()
	require.NoError(t, err)
	require.Equal(t, "upstream v1.13.6", peer.Name)
	require.Equal(t, []string{"--a=1", "--b"}, peer.Args)
	require.True(t, peer.WebhookServer)
}

func TestPeerFlags_RefusesAPeerWithoutCRDsOrAnUnknownPreset(t *testing.T) {
	_, err := (&peerFlags{manager: "/bin/core"}).resolve()
	require.ErrorContains(t, err, "--peer-crds")
	_, err = (&peerFlags{preset: "other"}).resolve()
	require.ErrorContains(t, err, `unknown peer "other"`)
	require.False(t, (&peerFlags{}).wanted(), "no peer: make bench's run of one core")
}
