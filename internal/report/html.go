package report

import (
	"fmt"
	"html/template"
	"io"
)

// HTML writes the report as one self-contained page: the Markdown
// report's tables and the charts as inline SVG drawn by gonum/plot. It
// loads nothing (no script, stylesheet, font or image from elsewhere), so
// it opens offline, from a CI artifact or a mail attachment.
func HTML(w io.Writer, s *Study, o Options) error {
	ax, err := s.AxisIndex(o.Axis)
	if err != nil {
		return err
	}
	// A Grow phase's charts first: they are what a growth study is read
	// for.
	charts, err := s.growthCharts()
	if err != nil {
		return err
	}
	more, err := s.charts()
	if err != nil {
		return err
	}
	charts = append(charts, more...)
	if s.History != nil {
		// The gate's history first: in CI it is what the page is opened for.
		hc, err := s.History.charts()
		if err != nil {
			return err
		}
		charts = append(hc, charts...)
	}
	page := htmlPage{Doc: s.buildDocument(ax)}
	for _, c := range charts {
		// The SVG comes from gonum/plot, which escapes every text it
		// draws; it is markup to keep, not text to escape.
		page.Charts = append(page.Charts, htmlChart{Title: c.Title, Note: c.Note, SVG: template.HTML(c.SVG)}) //nolint:gosec // see above
	}
	if err := pageTemplate.Execute(w, page); err != nil {
		return fmt.Errorf("write html: %w", err)
	}
	return nil
}

type htmlPage struct {
	Doc    document
	Charts []htmlChart
}

type htmlChart struct {
	Title string
	Note  string
	SVG   template.HTML
}

var pageTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"right": func(t table, i int) bool { return i < len(t.Right) && t.Right[i] },
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Doc.Title}}</title>
<style>
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 2em auto; max-width: 75em; padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 0.8em 0; font-size: 0.9em; display: block; max-width: 100%; overflow-x: auto; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
th { background: #f3f3f3; } td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
caption { text-align: left; font-weight: 600; padding: 0.3em 0; }
figure { margin: 1.5em 0; } figure svg { max-width: 100%; height: auto; }
figcaption { font-size: 0.9em; color: #555; }
.summary th { background: none; font-weight: 600; }
</style>
</head>
<body>
<h1>{{.Doc.Title}}</h1>
{{- with .Doc.Summary}}
<table class="summary">
{{- range .}}
<tr><th>{{index . 0}}</th><td>{{index . 1}}</td></tr>
{{- end}}
</table>
{{- end}}
{{- with .Charts}}
<h2>Charts</h2>
{{- range .}}
{{- if .SVG}}
<figure>
{{.SVG}}<figcaption>{{.Title}}{{with .Note}}. {{.}}{{end}}</figcaption>
</figure>
{{- else}}
<p class="note">{{.Note}}</p>
{{- end}}
{{- end}}
{{- end}}
{{- range .Doc.Parts}}
<section>
<h2>{{.Heading}}</h2>
{{- range .Text}}
<p>{{.}}</p>
{{- end}}
{{- range $t := .Tables}}
{{- with .Note}}
<p class="note">{{.}}</p>
{{- end}}
<table>
{{- with .Caption}}<caption>{{.}}</caption>{{end}}
<thead><tr>{{range $i, $h := .Header}}<th{{if right $t $i}} class="num"{{end}}>{{$h}}</th>{{end}}</tr></thead>
<tbody>
{{- range .Rows}}
<tr>{{range $i, $c := .}}<td{{if right $t $i}} class="num"{{end}}>{{$c}}</td>{{end}}</tr>
{{- end}}
</tbody>
</table>
{{- end}}
{{- with .Items}}
<ul>
{{- range .}}
<li>{{.}}</li>
{{- end}}
</ul>
{{- end}}
</section>
{{- end}}
</body>
</html>
`))
