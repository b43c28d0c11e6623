{{- define "gvDetails" -}}
{{- $gv := . -}}

## {{ $gv.GroupVersionString }}

{{ template "doc" $gv.Doc }}

{{- if $gv.Kinds  }}
### Resource Types
{{- range $gv.SortedKinds }}
- {{ $gv.TypeForKind . | markdownRenderTypeLink }}
{{- end }}
{{ end }}

{{ range $gv.SortedTypes }}
{{ template "type" . }}
{{ end }}

{{- end -}}

{{- /* doc renders a doc comment as Markdown text: angle brackets are
       placeholders in our comments (<name>, <phase>), never HTML. */ -}}
{{- define "doc" -}}
{{ . | replace "<" "&lt;" | replace ">" "&gt;" }}
{{- end -}}
