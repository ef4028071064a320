package share

import (
	"bytes"
	"image/png"
	"net"
	"strings"
	"testing"
)

func lan() net.IP   { return net.IPv4(192, 168, 1, 23) }
func noLAN() net.IP { return nil }

// Loopback is not shared and says how to share; a wildcard listener is
// shared under the LAN address; a given address is shared as it is; the
// URL never carries the admin token.
func TestFor(t *testing.T) {
	for _, c := range []struct {
		listen string
		lanIP  func() net.IP
		shared bool
		url    string
		says   string
	}{
		{"127.0.0.1:8080", lan, false, "", "Only this computer can open it"},
		{"[::1]:8080", lan, false, "", "SECKILL_HTTP_ADDR=0.0.0.0:8080"},
		{"localhost:9000", lan, false, "", "SECKILL_ADMIN_TOKEN"},
		{"0.0.0.0:8080", lan, true, "http://192.168.1.23:8080/shop/42", "admin token"},
		{"[::]:8081", lan, true, "http://192.168.1.23:8081/shop/42", "same network"},
		{":8082", lan, true, "http://192.168.1.23:8082/shop/42", "same network"},
		{"10.0.0.5:8080", noLAN, true, "http://10.0.0.5:8080/shop/42", "same network"},
		{"0.0.0.0:8080", noLAN, false, "", "no network address"},
	} {
		got := For(c.listen, c.shared, "/shop/42", c.lanIP)
		if got.Shared != c.shared || got.URL != c.url || !strings.Contains(got.Message.En, c.says) || got.Message.Zh == "" {
			t.Errorf("%s: %+v, want shared %v, url %q, a message saying %q", c.listen, got, c.shared, c.url, c.says)
		}
		if strings.Contains(got.URL, "token") {
			t.Errorf("%s: the URL %q carries a token", c.listen, got.URL)
		}
	}
}

// The QR code is a QRSize-pixel square PNG of black and white pixels with
// the finder pattern's dark corner after the quiet zone; a longer URL
// needs more modules, so the two pictures differ.
func TestQRIsAWellFormedPNG(t *testing.T) {
	b, err := QR("http://192.168.1.23:8080/shop/42")
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	if r := img.Bounds(); r.Dx() != QRSize || r.Dy() != QRSize {
		t.Fatalf("size %v, want %dx%d", r, QRSize, QRSize)
	}
	dark := func(x, y int) bool { r, _, _, _ := img.At(x, y).RGBA(); return r < 0x8000 }
	var black, white int
	for y := 0; y < QRSize; y += 4 {
		for x := 0; x < QRSize; x += 4 {
			r, g, bl, _ := img.At(x, y).RGBA()
			switch {
			case r == 0 && g == 0 && bl == 0:
				black++
			case r == 0xffff && g == 0xffff && bl == 0xffff:
				white++
			default:
				t.Fatalf("pixel (%d,%d) is neither black nor white", x, y)
			}
		}
	}
	if black == 0 || white == 0 || dark(0, 0) {
		t.Fatalf("%d black, %d white samples; corner dark %v: want both and a white quiet zone", black, white, dark(0, 0))
	}
	// The top-left finder pattern: the first dark pixel on the diagonal
	// starts a dark run (its outer ring).
	var first int
	for first = 0; first < QRSize/3 && !dark(first, first); first++ {
	}
	if first == QRSize/3 || !dark(first+2, first+2) {
		t.Fatalf("no finder pattern on the diagonal (first dark at %d)", first)
	}
	longer, err := QR("http://192.168.1.23:8080/shop/42?lang=zh&and=a-longer-link-that-needs-more-modules")
	if err != nil || bytes.Equal(longer, b) {
		t.Fatalf("a different URL gave the same picture (%v)", err)
	}
}
