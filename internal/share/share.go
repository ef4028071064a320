// Package share says where students' phones can open a page of the shop
// (a sale's shop page, a class question's vote page): the URL on the address the shop listens on (a wildcard listener is
// announced under this machine's first LAN address), or, when the shop
// listens on loopback only, that only this computer can open it and how to
// share. It also draws that URL as a QR code (PNG). The URL is always built
// here from the listener and the sale, never taken from a request, so the
// QR route cannot be made to advertise another site.
package share

import (
	"fmt"
	"net"

	qrcode "github.com/skip2/go-qrcode"
)

// QRSize is the QR code's side in pixels: large enough for a projector,
// scanned from the back of a room.
const QRSize = 512

// Texts is a sentence in English and Chinese.
type Texts struct {
	En string `json:"en"`
	Zh string `json:"zh"`
}

// Info is a page as students can open it.
type Info struct {
	// Shared says a phone on the same network can reach the shop: it
	// listens beyond loopback (and so has an admin token: the shop refuses
	// to start otherwise).
	Shared bool `json:"shared"`
	// URL is the page on an address a phone can reach; "" when not
	// shared.
	URL string `json:"url"`
	// Listen is the address this replica listens on.
	Listen string `json:"listen"`
	// AdminToken says administrative writes need the admin token (the
	// token itself is never shown).
	AdminToken bool  `json:"admin_token"`
	Message    Texts `json:"message"`
}

// For is the page at path (such as /shop/12) for a replica listening on
// listen. lanIP finds this machine's address for a wildcard listener (nil:
// none).
func For(listen string, adminToken bool, path string, lanIP func() net.IP) Info {
	info := Info{Listen: listen, AdminToken: adminToken}
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		info.Message = Texts{En: "The shop's listen address " + listen + " cannot be read.", Zh: "无法解析商店的监听地址 " + listen + "。"}
		return info
	}
	ip := net.ParseIP(host)
	switch {
	case host == "localhost" || (ip != nil && ip.IsLoopback()):
		info.Message = Texts{
			En: fmt.Sprintf("Only this computer can open it: the shop listens on %s. To share it, start the demo with SECKILL_HTTP_ADDR=0.0.0.0:%s and SECKILL_ADMIN_TOKEN=<secret>.", listen, port),
			Zh: fmt.Sprintf("只有这台电脑能打开：商店只监听 %s。要分享给学生，请用 SECKILL_HTTP_ADDR=0.0.0.0:%s 和 SECKILL_ADMIN_TOKEN=<密码> 启动演示。", listen, port),
		}
		return info
	case host == "" || (ip != nil && ip.IsUnspecified()):
		lan := lanIP()
		if lan == nil {
			info.Message = Texts{En: "The shop listens on every interface, but this computer has no network address a phone could reach.",
				Zh: "商店监听所有网卡，但这台电脑没有手机能访问的网络地址。"}
			return info
		}
		host = lan.String()
	}
	info.Shared = true
	info.URL = "http://" + net.JoinHostPort(host, port) + path
	info.Message = Texts{
		En: "Phones on the same network open this link. Admin actions need the admin token; it is not in the link.",
		Zh: "同一网络内的手机打开这个链接即可。管理操作需要管理员令牌，链接里不含令牌。",
	}
	return info
}

// LANIP is this machine's first up, non-loopback IPv4 address (a phone on
// the same Wi-Fi reaches it), or nil.
func LANIP() net.IP {
	ifaces, err := net.Interfaces()
	if err != nil {
		return nil
	}
	for _, ifc := range ifaces {
		if ifc.Flags&net.FlagUp == 0 || ifc.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, err := ifc.Addrs()
		if err != nil {
			continue
		}
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() {
				return n.IP.To4()
			}
		}
	}
	return nil
}

// QR draws url as a PNG QR code of QRSize pixels.
func QR(url string) ([]byte, error) {
	return qrcode.Encode(url, qrcode.Medium, QRSize)
}
