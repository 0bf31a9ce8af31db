package main

import (
	"bytes"
	"fmt"
)

// Layout of the plot, in pixels.
const (
	plotWidth   = 960
	plotLeft    = 64  // left edge of the panels
	plotRight   = 940 // right edge of the panels
	panelTop    = 150 // top of the first panel
	panelHeight = 170
	panelGap    = 70 // from the bottom of one panel to the top of the next
	plotHeight  = panelTop + 3*panelHeight + 2*panelGap + 56
)

// colours of the three panels, in the order of algorithms.
var colours = [len(algorithms)]string{"#1f6fb4", "#e07b00", "#2e9a3a"}

// titles of the algorithms, in the order of algorithms.
var titles = [len(algorithms)]string{"fixed window", "sliding window counter", "sliding log"}

// tenth is an SVG coordinate in tenths of a pixel. Coordinates are computed
// on integers so that the output is the same on every machine.
type tenth int64

func (v tenth) String() string {
	if v < 0 {
		return "-" + (-v).String()
	}
	if v%10 == 0 {
		return fmt.Sprint(int64(v / 10))
	}
	return fmt.Sprintf("%d.%d", v/10, v%10)
}

// frame maps time (ms) and counts to one panel's coordinates.
type frame struct {
	top    int64 // pixels
	length int64 // milliseconds shown
	ymax   int64 // count at the top edge
}

func (f frame) x(t int64) tenth {
	t = min(max(t, 0), f.length)
	return tenth(plotLeft*10 + t*(plotRight-plotLeft)*10/f.length)
}

func (f frame) y(n int64) tenth {
	n = min(max(n, 0), f.ymax)
	return tenth((f.top+panelHeight)*10 - n*panelHeight*10/f.ymax)
}

func (f frame) bottom() tenth { return tenth((f.top + panelHeight) * 10) }

// svg is an SVG document being written.
type svg struct{ bytes.Buffer }

func (b *svg) printf(format string, args ...any) { fmt.Fprintf(&b.Buffer, format, args...) }

// plot draws, for the figure workload, one panel per algorithm: offered and
// admitted requests per W/10 as bars, admitted requests in the trailing W
// as a step line, and the limit.
func plot(s setup, r *run) []byte {
	var b svg
	b.printf(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.printf(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="Helvetica, Arial, sans-serif" font-size="12">`+"\n",
		plotWidth, plotHeight, plotWidth, plotHeight)
	b.printf(`<title>Requests admitted over time by the fixed window, the sliding window counter and the sliding log, under the same traffic</title>` + "\n")
	b.printf(`<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", plotWidth, plotHeight)
	b.printf(`<text x="%d" y="28" font-size="18" font-weight="bold">Same traffic, three algorithms: %d requests per %s</text>`+"\n",
		plotLeft, s.Limit, dur(s.Window))
	b.printf(`<text x="%d" y="48" fill="#444">One client, with light background traffic throughout: a burst of %d requests on each side of the window boundary at %s,</text>`+"\n",
		plotLeft, s.Limit, dur(s.Window))
	b.printf(`<text x="%d" y="64" fill="#444">then twice the allowed rate until %s; quiet; twice the allowed rate again from %s.</text>`+"\n",
		plotLeft, dur(2*s.Window), dur(3*s.Window))
	legend(&b, s)

	offered := perBin(requestTimes(r.W), s.short(), r.W.Length)
	for i := range algorithms {
		f := frame{top: panelTop + int64(i)*(panelHeight+panelGap), length: r.W.Length, ymax: 2*s.Limit + s.Limit/5}
		panel(&b, s, f, i, r.Outs[i], offered, i == 0)
	}
	b.printf(`<text x="%d" y="%d" text-anchor="middle" fill="#444">time (s)</text>`+"\n",
		(plotLeft+plotRight)/2, plotHeight-12)
	b.printf("</svg>\n")
	return b.Bytes()
}

// legend draws the key of the plot, under the title.
func legend(b *svg, s setup) {
	const y = 92
	x := int64(plotLeft)
	b.printf(`<rect x="%d" y="%d" width="14" height="10" fill="#d4d4d4"/>`+"\n", x, y-9)
	b.printf(`<text x="%d" y="%d">offered per %s</text>`+"\n", x+20, y, dur(s.short()))
	x += 150
	for i, c := range colours {
		b.printf(`<rect x="%d" y="%d" width="6" height="10" fill="%s" fill-opacity="0.45"/>`+"\n", x+int64(i)*6, y-9, c)
	}
	b.printf(`<text x="%d" y="%d">admitted per %s</text>`+"\n", x+24, y, dur(s.short()))
	x += 160
	for i, c := range colours {
		b.printf(`<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2.5"/>`+"\n", x+int64(i)*8, y-4, x+int64(i)*8+8, y-4, c)
	}
	b.printf(`<text x="%d" y="%d">admitted in the trailing %s</text>`+"\n", x+30, y, dur(s.Window))
	x += 215
	b.printf(`<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#c62828" stroke-width="1.5" stroke-dasharray="6 4"/>`+"\n", x, y-4, x+24, y-4)
	b.printf(`<text x="%d" y="%d">limit L = %d</text>`+"\n", x+30, y, s.Limit)
}

// panel draws algorithm i's panel.
func panel(b *svg, s setup, f frame, i int, o *outcome, offered []int, phases bool) {
	left, right := tenth(plotLeft*10), tenth(plotRight*10)
	top, bottom := tenth(f.top*10), f.bottom()
	most, at := maxInWindow(o.ByKey[0], s.Window)
	b.printf(`<g id="%s">`+"\n", o.Alg)
	b.printf(`<text x="%s" y="%s" font-weight="bold" font-size="14" fill="%s">%s</text>`+"\n", left, top-280, colours[i], titles[i])
	b.printf(`<text x="%s" y="%s" text-anchor="end" fill="#444">most admitted in any %s: %d (at %s)</text>`+"\n",
		right, top-280, dur(s.Window), most, seconds(at))
	b.printf(`<rect x="%s" y="%s" width="%s" height="%s" fill="#fbfbfb" stroke="#bbbbbb"/>`+"\n", left, top, right-left, bottom-top)
	mid := (top + bottom) / 2
	b.printf(`<text x="%s" y="%s" transform="rotate(-90 %s %s)" text-anchor="middle" fill="#444">requests</text>`+"\n",
		left-440, mid, left-440, mid)

	// Horizontal grid and y labels, every L/2.
	for n := int64(0); n <= f.ymax; n += s.Limit / 2 {
		y := f.y(n)
		if n > 0 {
			b.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#e6e6e6"/>`+"\n", left, y, right, y)
		}
		b.printf(`<text x="%s" y="%s" text-anchor="end" fill="#444">%d</text>`+"\n", left-60, y+40, n)
	}
	// Time axis: a tick every W/2, window boundaries dashed.
	for t := int64(0); t <= f.length; t += s.Window / 2 {
		x := f.x(t)
		b.printf(`<text x="%s" y="%s" text-anchor="middle" fill="#444">%s</text>`+"\n", x, bottom+150, ratio(t))
		if t%s.Window == 0 && t > 0 && t < f.length {
			b.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#999999" stroke-dasharray="3 3"/>`+"\n", x, top, x, bottom)
		}
	}
	if phases {
		phaseLabels(b, s, f)
	}

	// Bars: offered behind, admitted in front.
	admitted := perBin(o.ByKey[0], s.short(), f.length)
	bars(b, f, s.short(), offered, `fill="#d4d4d4"`)
	bars(b, f, s.short(), admitted, fmt.Sprintf(`fill="%s" fill-opacity="0.45"`, colours[i]))

	// The limit.
	yl := f.y(s.Limit)
	b.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#c62828" stroke-width="1.5" stroke-dasharray="6 4"/>`+"\n", left, yl, right, yl)
	b.printf(`<text x="%s" y="%s" text-anchor="end" fill="#c62828">L = %d</text>`+"\n", right-40, yl-40, s.Limit)

	// Admitted in the trailing window, as an exact step line.
	b.printf(`<path fill="none" stroke="%s" stroke-width="2" d="M%s %s`, colours[i], left, f.y(0))
	for _, st := range trailing(o.ByKey[0], s.Window) {
		if st.At >= f.length {
			break
		}
		b.printf(`H%sV%s`, f.x(st.At), f.y(int64(st.N)))
	}
	b.printf(`H%s"/>`+"\n", right)
	b.printf("</g>\n")
}

// bars draws one bar per bin of counts.
func bars(b *svg, f frame, bin int64, counts []int, style string) {
	for k, n := range counts {
		if n == 0 {
			continue
		}
		x0, x1 := f.x(int64(k)*bin)+10, f.x(int64(k+1)*bin)-10
		y := f.y(int64(n))
		b.printf(`<rect x="%s" y="%s" width="%s" height="%s" %s/>`+"\n", x0, y, x1-x0, f.bottom()-y, style)
	}
}

// phaseLabels names the parts of the figure workload above the first panel.
func phaseLabels(b *svg, s setup, f frame) {
	w := s.Window
	for _, p := range []struct {
		at   int64
		text string
	}{
		{w / 2, "background"},
		{w, "burst"},
		{3 * w / 2, "2 × L/W"},
		{5 * w / 2, "quiet"},
		{4 * w, "steady 2 × L/W"},
	} {
		b.printf(`<text x="%s" y="%s" text-anchor="middle" font-style="italic" fill="#666">%s</text>`+"\n",
			f.x(p.at), tenth(f.top*10-80), p.text)
	}
}

// requestTimes returns the instants of every request of w.
func requestTimes(w *workload) []int64 {
	ts := make([]int64, len(w.Reqs))
	for i, r := range w.Reqs {
		ts[i] = r.at
	}
	return ts
}

// seconds formats milliseconds as seconds with up to three decimals.
func seconds(ms int64) string { return ratio(ms) + " s" }
