{{- define "type_members" -}}
{{- $field := . -}}
{{- if eq $field.Name "metadata" -}}
Refer to Kubernetes API documentation for fields of `metadata`.
{{- else -}}
{{ $field.Doc | replace "<" "&lt;" | replace ">" "&gt;" | markdownRenderFieldDoc }}
{{- end -}}
{{- end -}}
