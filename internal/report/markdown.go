package report

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Markdown writes the report as GitHub-flavoured Markdown: a summary, one
// pivot table per metric (per combination of the other axes), the knees,
// latencies by operation, the environment and the failed runs. Columns are
// padded so the text reads as well as it renders.
func Markdown(w io.Writer, s *Study, o Options) error {
	ax, err := s.AxisIndex(o.Axis)
	if err != nil {
		return err
	}
	d := s.buildDocument(ax)
	// The document is built in memory (a few KiB) and written at once, so
	// a write error has one place to surface.
	bw := &strings.Builder{}
	bw.WriteString("# " + d.Title + "\n\n")
	if len(d.Summary) > 0 {
		rows := make([][]string, len(d.Summary))
		for i, kv := range d.Summary {
			rows[i] = []string{kv[0], kv[1]}
		}
		writeMarkdownTable(bw, table{Header: []string{"", ""}, Rows: rows})
	}
	for _, p := range d.Parts {
		bw.WriteString("\n## " + p.Heading + "\n")
		for _, t := range p.Text {
			bw.WriteString("\n" + mdText(t) + "\n")
		}
		for _, t := range p.Tables {
			if t.Caption != "" {
				bw.WriteString("\n**" + mdText(t.Caption) + "**\n")
			}
			if t.Note != "" {
				bw.WriteString("\n" + mdText(t.Note) + "\n")
			}
			bw.WriteString("\n")
			writeMarkdownTable(bw, t)
		}
		if len(p.Items) > 0 {
			bw.WriteString("\n")
			for _, it := range p.Items {
				bw.WriteString("- " + mdText(it) + "\n")
			}
		}
	}
	if _, err := io.WriteString(w, bw.String()); err != nil {
		return fmt.Errorf("write markdown: %w", err)
	}
	return nil
}

// writeMarkdownTable writes a pipe table with padded columns.
func writeMarkdownTable(w *strings.Builder, t table) {
	width := make([]int, len(t.Header))
	cell := func(row []string, i int) string {
		if i < len(row) {
			return mdCell(row[i])
		}
		return ""
	}
	for i := range t.Header {
		width[i] = max(3, utf8.RuneCountInString(cell(t.Header, i)))
		for _, r := range t.Rows {
			width[i] = max(width[i], utf8.RuneCountInString(cell(r, i)))
		}
	}
	right := func(i int) bool { return i < len(t.Right) && t.Right[i] }
	line := func(row []string) {
		w.WriteString("|")
		for i := range t.Header {
			c := cell(row, i)
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if right(i) {
				c = pad + c
			} else {
				c += pad
			}
			w.WriteString(" " + c + " |")
		}
		w.WriteString("\n")
	}
	line(t.Header)
	w.WriteString("|")
	for i := range t.Header {
		if right(i) {
			w.WriteString(" " + strings.Repeat("-", width[i]-1) + ": |")
		} else {
			w.WriteString(" " + strings.Repeat("-", width[i]) + " |")
		}
	}
	w.WriteString("\n")
	for _, r := range t.Rows {
		line(r)
	}
}

// mdCell keeps a value inside its table cell.
func mdCell(s string) string {
	return strings.ReplaceAll(mdText(s), "|", `\|`)
}

// mdText keeps free text (failure messages) on one line and free of
// markup that would change the document's structure.
func mdText(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.NewReplacer("<", "&lt;", ">", "&gt;").Replace(s)
}
